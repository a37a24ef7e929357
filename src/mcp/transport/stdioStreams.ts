/**
 * The streams of the stdio transports (the stdio server and the stdio → HTTP bridge) and the one
 * rule both keep: stdout carries the MCP protocol only, so console output is sent to stderr.
 */
import type { Readable, Writable } from 'node:stream';

export interface StdioStreams {
  /** Default `process.stdin`. */
  stdin?: Readable;
  /** Default `process.stdout`. */
  stdout?: Writable;
}

let consoleRedirected = false;

/** Routes console.log/info/debug to stderr: stdout belongs to the protocol. */
export function redirectConsoleToStderr(): void {
  if (consoleRedirected) return;
  consoleRedirected = true;
  const toStderr = (...args: unknown[]): void => console.error(...args);
  // eslint-disable-next-line no-console -- replacing, not calling: stdout is the protocol channel
  console.log = toStderr;
  // eslint-disable-next-line no-console -- as above
  console.info = toStderr;
  // eslint-disable-next-line no-console -- as above
  console.debug = toStderr;
}
