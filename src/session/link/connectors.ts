/**
 * How a session reaches its Lua program. `launchConnector` checks that the interpreter loads
 * luasocket and the runtime, listens on a free port (loopback unless `connectionHost` says
 * otherwise) and starts the program on it; `listenConnector` waits for a game that calls
 * `LuaPanda.start` (attach, default 127.0.0.1:8818); `dialConnector` connects to a game that
 * called `LuaPanda.startServer`. All waits are bounded and end at once when the connector is
 * disposed.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Tracer } from '../../common/trace';
import { LuaListener, ReplyInfo, connectToLua } from '../../protocol';
import { DebuggeeProcess, DebuggeeSpec } from './debuggee';
import { SessionError, sessionErrors } from '../errors';
import { describeExit } from './exitStatus';
import { checkInterpreter } from './launchProbe';
import { DEFAULT_CONNECTION_HOST, localAddressOf } from './listenHost';
import { gameNotReached, noGameConnected, programEndedEarly } from './setupErrors';
import type { SessionConnection } from '../types';

export interface Connector {
  readonly mode: 'launch' | 'attach';
  /** Where the session waits, for messages (`127.0.0.1:8818`). */
  readonly endpoint: string;
  /** The address and port the session listens on, when it listens (launch, attach). */
  readonly listening?: { readonly host: string; readonly port: number };
  /** The program, when this connector started it. */
  readonly process?: DebuggeeProcess;
  /** Whether a second connection can follow the first (autoReconnect). */
  readonly canReconnect: boolean;
  /** Resolves with the next connection; rejects with a `SessionError`. */
  nextConnection(timeoutMs?: number): Promise<SessionConnection>;
  /** Messages worth showing the user (a rejected second connection, …). */
  onNotice?: (text: string) => void;
  /**
   * Attach listeners only: set to take the connections of further games while one is connected
   * (each becomes a session of its own); unset, they are refused.
   */
  onExtraConnection?: (connection: SessionConnection) => void;
  /**
   * Listeners only: the peer of `connection` failed the pairing or dropped the link in the
   * handshake; its address (unless loopback) waits a while before it is taken again.
   */
  pairingFailed?: (connection: SessionConnection) => void;
  /** The handshake reply of a connection whose handshake was made before it was handed over. */
  handshakeOf?: (connection: SessionConnection) => ReplyInfo<'initSuccess'> | undefined;
  /** Releases the listener and pending waits; ends the program when `killProcess`. */
  dispose(killProcess: boolean): Promise<void>;
}

export interface LaunchSpec extends Omit<DebuggeeSpec, 'port' | 'host'> {
  readonly requestTimeoutMs?: number;
  /** Traces the frames of the connections it makes. */
  readonly tracer?: Tracer;
  /** Interface the debugger listens on for the program (`connectionHost`); default 127.0.0.1. */
  readonly listenHost?: string;
}

export async function launchConnector(spec: LaunchSpec): Promise<Connector> {
  if (!fs.existsSync(spec.cwd) || !fs.statSync(spec.cwd).isDirectory()) {
    throw new SessionError(
      'invalid-configuration',
      `The working folder "${spec.cwd}" does not exist. Check "cwd" in the launch configuration.`,
    );
  }
  if (!fs.existsSync(spec.program) || !fs.statSync(spec.program).isFile()) {
    throw new SessionError(
      'program-not-found',
      `The program "${spec.program}" does not exist. Check "program" in the launch configuration ` +
        '(relative paths are resolved against "cwd").',
    );
  }
  if (!spec.noDebug && !fs.existsSync(path.join(spec.runtimeDir, 'LuaPanda.lua'))) {
    throw new SessionError(
      'runtime-not-found',
      `The debugger runtime LuaPanda.lua was not found in ${spec.runtimeDir}. Rebuild the ` +
        'extension (node scripts/build-lua.mjs) or set "runtimePath".',
    );
  }
  // Without luasocket (or the runtime) the program would run undebugged until the connect
  // timeout: check first, with the same interpreter, environment and search paths.
  const interpreters = spec.noDebug
    ? spec.interpreters
    : [(await checkInterpreter(spec)).interpreter];
  const listenHost = spec.listenHost ?? DEFAULT_CONNECTION_HOST;
  let listener: LuaListener;
  try {
    listener = await LuaListener.listen({
      port: 0,
      host: listenHost,
      requestTimeoutMs: spec.requestTimeoutMs,
      tracer: spec.tracer,
    });
  } catch (error) {
    throw new SessionError('invalid-configuration', listenFailure(listenHost, error));
  }
  let debuggee: DebuggeeProcess;
  try {
    debuggee = await DebuggeeProcess.start({
      ...spec,
      interpreters,
      port: listener.port,
      host: localAddressOf(listenHost),
    });
  } catch (error) {
    await listener.close();
    throw error;
  }
  const aborter = new AbortController();
  return {
    mode: 'launch',
    endpoint: `${listenHost}:${listener.port}`,
    listening: { host: listenHost, port: listener.port },
    process: debuggee,
    canReconnect: false,
    nextConnection(timeoutMs) {
      if (debuggee.exited) return Promise.reject(exitError(debuggee));
      return new Promise<SessionConnection>((resolve, reject) => {
        const onExit = () => {
          // Let the last stderr chunk arrive: 'exit' fires after the pipes close.
          cleanup();
          reject(exitError(debuggee));
        };
        const cleanup = () => debuggee.off('exit', onExit);
        debuggee.once('exit', onExit);
        listener
          .waitForConnection({ timeoutMs, signal: aborter.signal })
          .then((connection) => {
            cleanup();
            resolve(connection);
          })
          .catch(() => {
            cleanup();
            reject(
              aborter.signal.aborted
                ? sessionErrors.stoppedWhile('starting')
                : new SessionError(
                    'no-connection',
                    `The program did not connect to the debugger within ${timeoutMs} ms. ` +
                      `Its output so far: ${debuggee.stderrTail.trim() || '(nothing on stderr)'}`,
                  ),
            );
          });
      });
    },
    async dispose(killProcess) {
      aborter.abort();
      if (killProcess) await debuggee.kill();
      await listener.close();
    },
  };
}

function exitError(debuggee: DebuggeeProcess): SessionError {
  const syntax = debuggee.syntaxError;
  if (syntax !== undefined) {
    return new SessionError('syntax-error', `The program has a syntax error: ${syntax}`);
  }
  const exit = debuggee.exitStatus ?? { code: null, signal: null };
  return programEndedEarly(describeExit(exit), debuggee.stderrTail);
}

export interface ListenSpec {
  readonly port: number;
  /** Interface to bind (`connectionHost`); default 127.0.0.1: games on this machine only. */
  readonly host?: string;
  readonly requestTimeoutMs?: number;
  /** Traces the frames of the connections it makes. */
  readonly tracer?: Tracer;
  /** The configured wait for the game (`connectionTimeout`), for the message when it passes. */
  readonly connectionTimeoutS?: number;
}

export async function listenConnector(spec: ListenSpec): Promise<Connector> {
  const host = spec.host ?? DEFAULT_CONNECTION_HOST;
  let listener: LuaListener;
  try {
    listener = await LuaListener.listen({
      port: spec.port,
      host,
      requestTimeoutMs: spec.requestTimeoutMs,
      tracer: spec.tracer,
    });
  } catch (error) {
    const message = (error as Error).message;
    if (/in use/.test(message)) throw new SessionError('port-in-use', message);
    throw new SessionError('no-connection', listenFailure(host, error));
  }
  const aborter = new AbortController();
  const connector: Connector = {
    mode: 'attach',
    endpoint: `${host}:${listener.port}`,
    listening: { host, port: listener.port },
    canReconnect: true,
    async nextConnection(timeoutMs) {
      try {
        return await listener.waitForConnection({ timeoutMs, signal: aborter.signal });
      } catch {
        if (aborter.signal.aborted) {
          throw sessionErrors.stoppedWhile('waiting for the game');
        }
        // The listener rejects only when aborted or when the time is up.
        const seconds = spec.connectionTimeoutS ?? (timeoutMs ?? 0) / 1000;
        throw noGameConnected({ port: listener.port, host, seconds });
      }
    },
    pairingFailed: (connection) => listener.holdOff(connection),
    async dispose() {
      aborter.abort();
      await listener.close();
    },
  };
  listener.on('extra', (connection) => {
    if (connector.onExtraConnection) connector.onExtraConnection(connection);
    else void connection.close();
  });
  listener.on('rejected', (rejected) =>
    connector.onNotice?.(
      `Refused a Lua connection from ${rejected.remoteAddress}: ${rejected.reason}.`,
    ),
  );
  return connector;
}

/** Why listening on `host` failed: an address this machine does not have, most likely. */
function listenFailure(host: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const why = (error as Error).message;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return (
      `Cannot listen on "${host}" ("connectionHost"): it is not an address of this machine ` +
      `(${why}). Use "127.0.0.1" (this machine only), "0.0.0.0" (every interface) or one of ` +
      "this machine's own addresses."
    );
  }
  return `Cannot listen on "${host}" ("connectionHost"): ${why}`;
}

export interface DialSpec {
  readonly host: string;
  readonly port: number;
  readonly requestTimeoutMs?: number;
  /** Traces the frames of the connections it makes. */
  readonly tracer?: Tracer;
  /** The configured wait for the game (`connectionTimeout`), for the message when it passes. */
  readonly connectionTimeoutS?: number;
}

export function dialConnector(spec: DialSpec): Connector {
  const aborter = new AbortController();
  return {
    mode: 'attach',
    endpoint: `${spec.host}:${spec.port}`,
    canReconnect: true,
    async nextConnection(timeoutMs) {
      try {
        return await connectToLua({
          host: spec.host,
          port: spec.port,
          timeoutMs,
          signal: aborter.signal,
          requestTimeoutMs: spec.requestTimeoutMs,
          tracer: spec.tracer,
        });
      } catch (error) {
        if (aborter.signal.aborted) {
          throw sessionErrors.stoppedWhile('connecting');
        }
        const message = (error as Error).message;
        const seconds = spec.connectionTimeoutS ?? (timeoutMs ?? 0) / 1000;
        const lastError = /\(last error: (.+?)\)\./.exec(message)?.[1] ?? '';
        throw gameNotReached({ host: spec.host, port: spec.port, seconds }, lastError);
      }
    },
    async dispose() {
      aborter.abort();
    },
  };
}

/**
 * A game's connection handed over by the session that accepted it (several games on one port),
 * with the handshake that session already made: it is used once, and the session ends with it.
 */
export function handoffConnector(
  connection: SessionConnection,
  handshake: ReplyInfo<'initSuccess'>,
  endpoint: string,
): Connector {
  let taken = false;
  return {
    mode: 'attach',
    endpoint,
    canReconnect: false,
    handshakeOf: (c) => (c === connection ? handshake : undefined),
    nextConnection() {
      if (taken || connection.closed) {
        return Promise.reject(
          new SessionError('connection-lost', 'The game disconnected before its session began.'),
        );
      }
      taken = true;
      return Promise.resolve(connection);
    },
    async dispose() {
      if (!connection.closed) await connection.close();
    },
  };
}
