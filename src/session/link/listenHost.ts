/**
 * Where the debugger listens for a Lua program (`connectionHost`): loopback by default, so that
 * nothing but this machine reaches the debug port; every interface (`0.0.0.0`) or one address of
 * this machine when a game on a phone or another machine must connect. How to say which, and
 * where a launched program connects to reach it.
 */

/** The default `connectionHost`: this machine only. */
export const DEFAULT_CONNECTION_HOST = '127.0.0.1';

const ANY_ADDRESSES = new Set(['0.0.0.0', '::', '[::]']);

/** Whether `host` is reachable from this machine only (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const h = host.trim().toLowerCase();
  return h === 'localhost' || h === '::1' || h === '[::1]' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** Whether `host` means every interface of this machine. */
export function isAnyHost(host: string): boolean {
  return ANY_ADDRESSES.has(host.trim());
}

/**
 * How the listening address reads to the user: "127.0.0.1 only (this machine)", "every interface
 * (0.0.0.0): other machines and devices can connect", "192.168.1.5: machines on that network can
 * connect".
 */
export function describeListenHost(host: string): string {
  if (isLoopbackHost(host)) return `${host} only (this machine)`;
  if (isAnyHost(host)) {
    return `every interface (${host}): other machines and devices on the network can connect`;
  }
  return `${host}: other machines on that network can connect`;
}

/**
 * The one line said when the debug port is reachable from beyond this machine, or undefined for
 * loopback (nothing worth a word): who can connect, and whether they must prove the secret.
 */
export function exposureNotice(host: string, port: number, secured = false): string | undefined {
  if (isLoopbackHost(host)) return undefined;
  return (
    `The debug port ${port} listens on ${describeListenHost(host)} ("connectionHost"); ` +
    pairingClause(secured) +
    ' Use "127.0.0.1" when the game runs on this machine.'
  );
}

/** Whether a program that reaches a port open to the network must prove the pairing secret. */
export function pairingClause(secured: boolean): string {
  return secured
    ? 'only a game that proves the pairing secret ("connectionSecret") is accepted.'
    : 'without "connectionSecret" any program that reaches it is taken for the game.';
}

/** The address a program started on this machine connects to, to reach a listener on `host`. */
export function localAddressOf(host: string): string {
  return isAnyHost(host) ? DEFAULT_CONNECTION_HOST : host.replace(/^\[(.*)\]$/, '$1');
}
