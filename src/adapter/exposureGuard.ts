/**
 * The debug port leaves this machine only paired: a configuration whose `connectionHost` is not
 * loopback must name a `connectionSecret` (the game proves it, and so do we), or say
 * `"connectionInsecure": true` to accept any program that reaches the port — the IDE side of the
 * rule the runtime keeps for `startServer` (`{ insecure = true }`).
 */
import { describeListenHost, isLoopbackHost } from '../session/link/listenHost';

/** What decides it: where VS Code listens, whether it dials instead, and the two opt-ins. */
export interface ExposureArguments {
  readonly connectionHost?: string;
  readonly connectionSecret?: string;
  readonly connectionInsecure?: boolean;
  readonly VSCodeAsClient?: boolean;
}

/** Why the configuration may not listen as it asks, or undefined when it may. */
export function unpairedExposure(args: ExposureArguments): string | undefined {
  const host = args.connectionHost;
  if (host === undefined || args.VSCodeAsClient === true || isLoopbackHost(host)) return undefined;
  if ((args.connectionSecret ?? '') !== '' || args.connectionInsecure === true) return undefined;
  return (
    `Will not listen on "${host}" ("connectionHost": ${describeListenHost(host)}) without a ` +
    'pairing secret: ' +
    'any program that reaches the port would be taken for the game and be shown your sources, ' +
    'and could answer in its name. Set "connectionSecret" (the game gets the same: ' +
    '{ secret = "…" } as the third argument of start(), or the environment variable ' +
    'LUAPANDA_SECRET; "${env:LUAPANDA_SECRET}" keeps it out of the repository), use "127.0.0.1" ' +
    'for a game on this machine, or set "connectionInsecure": true to listen unguarded anyway.'
  );
}

/** Throws the refusal of `unpairedExposure`, if any. */
export function assertPairedExposure(args: ExposureArguments): void {
  const refusal = unpairedExposure(args);
  if (refusal !== undefined) throw new Error(refusal);
}
