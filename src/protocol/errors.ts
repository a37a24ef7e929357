/**
 * The protocol layer's errors, as a catalogue: every failure has a stable `code` that callers and
 * tests match on, and a message a human can act on. Frame-level problems are reported as events
 * (the stream goes on); request-level problems reject the request's promise.
 */

/** Problems with what the peer sent. None of them ends the connection. */
export type ProtocolErrorCode =
  | 'frame-too-large'
  | 'truncated-frame'
  | 'missing-delimiter'
  | 'invalid-json'
  | 'invalid-envelope'
  | 'unknown-command'
  | 'invalid-message'
  | 'unknown-reply'
  | 'late-reply'
  | 'mismatched-reply';

export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';
  constructor(
    readonly code: ProtocolErrorCode,
    message: string,
    /** A short, size-capped excerpt of the offending frame, for logs. */
    readonly excerpt?: string,
  ) {
    super(message);
  }
}

/** A request got no reply within its time limit. The pending entry has been freed. */
export class RequestTimeoutError extends Error {
  override readonly name = 'RequestTimeoutError';
  readonly code = 'request-timeout';
  constructor(
    readonly cmd: string,
    readonly timeoutMs: number,
  ) {
    super(`The Lua side did not answer '${cmd}' within ${timeoutMs} ms.`);
  }
}

/** The connection closed (or was disposed) while a request was pending or being sent. */
export class ConnectionClosedError extends Error {
  override readonly name = 'ConnectionClosedError';
  readonly code = 'connection-closed';
  constructor(message = 'The connection to the Lua side is closed.') {
    super(message);
  }
}

/** Longest excerpt of a bad frame kept in an error, so one huge frame cannot flood a log. */
export const EXCERPT_LIMIT = 200;

export function excerptOf(text: string): string {
  return text.length <= EXCERPT_LIMIT
    ? text
    : `${text.slice(0, EXCERPT_LIMIT)}… (${text.length} chars)`;
}
