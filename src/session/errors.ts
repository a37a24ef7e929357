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
  'pairing-failed': 3037,
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

/**
 * The failures of the session model, as factories: code and message together, so that the same
 * failure reads the same wherever it is raised. (Set-up failures: link/setupErrors.ts.)
 */
export const sessionErrors = {
  /** A command the program's state does not allow. */
  wrongState(
    code: 'not-running' | 'not-stopped' | 'invalid-state',
    verb: string,
    state: string,
    wanted: string,
  ): SessionError {
    return new SessionError(
      code,
      `Cannot ${verb}: the program is ${state.toLowerCase()}, not ${wanted}.`,
    );
  },
  noCurrentStop(verb: string): SessionError {
    return new SessionError('not-stopped', `Cannot ${verb}: no current stop.`);
  },
  /** A launch with noDebug: there is no link to the Lua side. */
  noDebugger(): SessionError {
    return new SessionError('not-supported', 'The program runs without the debugger (noDebug).');
  },
  notConnected(): SessionError {
    return new SessionError('connection-lost', 'No Lua program is connected.');
  },
  unknownThread(threadId: number, known: readonly number[]): SessionError {
    return new SessionError(
      'unknown-thread',
      `There is no thread ${threadId}; the threads are ${known.join(', ')}.`,
    );
  },
  unknownFrame(frameId: number): SessionError {
    return new SessionError(
      'unknown-frame',
      `Frame ${frameId} is not a frame of the current stop; frame ids last only until the ` +
        'program continues or steps.',
    );
  },
  invalidReference(handle: number): SessionError {
    return new SessionError(
      'invalid-reference',
      `Variable reference ${handle} is not valid: references last only until the program ` +
        'continues or steps. Get fresh ones from the current stop.',
    );
  },
  handshakeFailed(cause: string): SessionError {
    return new SessionError(
      'handshake-failed',
      `The Lua program connected but did not complete the LuaPanda handshake: ${cause}`,
    );
  },
  handshakeRefused(reason: string): SessionError {
    return new SessionError(
      'handshake-refused',
      `The Lua runtime refused the handshake: ${reason}`,
    );
  },
  /** The peer did not prove the pairing secret, or refused ours ("connectionSecret"). */
  pairingFailed(reason: string): SessionError {
    return new SessionError('pairing-failed', reason);
  },
  /** The session was stopped while it waited (`while starting`, `while waiting for the game`…). */
  stoppedWhile(what: string): SessionError {
    return new SessionError('terminated', `The session was stopped while ${what}.`);
  },
};
