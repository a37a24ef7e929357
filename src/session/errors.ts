/**
 * The session's user-facing failures as a catalogue: each has a stable code (callers and tests
 * match on it), a number for protocols that want one (DAP error ids), and a message that says
 * what to do. Everything a session command rejects with is a `SessionError`.
 */

export const SESSION_ERRORS = {
  'not-stopped': 3001,
  'not-running': 3002,
  'not-active': 3003,
  'invalid-state': 3004,
  'unknown-thread': 3005,
  'unknown-frame': 3006,
  'invalid-reference': 3007,
  'evaluate-failed': 3008,
  'set-variable-failed': 3009,
  'not-supported': 3010,
  'request-timeout': 3011,
  'connection-lost': 3012,
  'program-not-found': 3020,
  'interpreter-not-found': 3021,
  'program-failed': 3022,
  'syntax-error': 3023,
  'port-in-use': 3024,
  'no-connection': 3025,
  'runtime-not-found': 3026,
  'handshake-failed': 3027,
  'invalid-configuration': 3028,
  terminated: 3029,
  'luasocket-missing': 3030,
  'runtime-load-failed': 3031,
  'interpreter-check-failed': 3032,
  'handshake-refused': 3033,
  'pause-in-compiled-code': 3034,
  'source-unreadable': 3035,
  'invalid-arguments': 3036,
} as const;

export type SessionErrorCode = keyof typeof SESSION_ERRORS;

export class SessionError extends Error {
  override readonly name = 'SessionError';
  constructor(
    readonly code: SessionErrorCode,
    message: string,
  ) {
    super(message);
  }

  /** The numeric id of this error (used as the DAP `Message.id`). */
  get id(): number {
    return SESSION_ERRORS[this.code];
  }
}

/** Turns anything thrown below the session into a `SessionError` with a fitting code. */
export function toSessionError(
  error: unknown,
  fallback: SessionErrorCode = 'invalid-state',
): SessionError {
  if (error instanceof SessionError) return error;
  const err = error instanceof Error ? error : new Error(String(error));
  const code = (err as { code?: unknown }).code;
  if (code === 'request-timeout') return new SessionError('request-timeout', err.message);
  if (code === 'connection-closed') return new SessionError('connection-lost', err.message);
  return new SessionError(fallback, err.message);
}
