/**
 * The agent's deadline for one asynchronous tool call (`timeout_seconds`). Everything the call
 * waits on — the debugger's answer to a request as much as the next stop — ends at this deadline
 * or when the client cancels, whichever comes first; a request that is still pending then is
 * left to finish on its own, unheeded. The debugger's own request timeouts (10 s by default) are
 * not the agent's deadline and never lengthen or shorten it.
 */
import { COMPILED_PAUSE_MESSAGE } from '../../session/stop/compiledPause';
import { SESSION_ERRORS } from '../../session/errors';
import { DapRequestError } from '../headless/dapClient';
import type { ToolResult } from '../results';

/** A wait inside a tool call ended before the awaited answer came. */
export class WaitEnded extends Error {
  override readonly name = 'WaitEnded';
  constructor(
    readonly kind: 'timeout' | 'cancelled',
    /** What was awaited, for the message ("'next'", "the stop's state"). */
    readonly awaited: string,
  ) {
    super(`${kind} while waiting for ${awaited}`);
  }
}

export class Deadline {
  private readonly end: number;

  constructor(
    /** The whole allowance, in milliseconds. */
    readonly ms: number,
    private readonly signal: AbortSignal,
  ) {
    this.end = Date.now() + ms;
  }

  remainingMs(): number {
    return Math.max(0, this.end - Date.now());
  }

  /** The allowance in seconds, as the agent gave it (to a tenth). */
  get seconds(): number {
    return Math.round(this.ms / 100) / 10;
  }

  /** `work`'s result, or `WaitEnded` once the deadline passes or the call is cancelled. */
  async within<T>(work: Promise<T>, awaited: string): Promise<T> {
    if (this.signal.aborted) throw new WaitEnded('cancelled', awaited);
    let timer: NodeJS.Timeout | undefined;
    let onAbort: (() => void) | undefined;
    const ended = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new WaitEnded('timeout', awaited)), this.remainingMs());
      onAbort = () => reject(new WaitEnded('cancelled', awaited));
      this.signal.addEventListener('abort', onAbort);
    });
    try {
      return await Promise.race([work, ended]);
    } finally {
      clearTimeout(timer);
      if (onAbort) this.signal.removeEventListener('abort', onAbort);
    }
  }
}

/** The result of a call whose wait ended on a pending request. */
export function waitEndedResult(ended: WaitEnded, deadline: Deadline): ToolResult {
  if (ended.kind === 'cancelled') {
    return {
      status: 'interrupted',
      message: 'The request was cancelled; the session was left as it was.',
    };
  }
  return {
    status: 'timeout',
    message:
      `The debugger did not answer ${ended.awaited} within the ${deadline.seconds} s allowed ` +
      '(timeout_seconds); the Lua side may be busy in native code, or hung. The session goes ' +
      'on: call get_debug_state to check, pause_debugging, or stop_debugging.',
  };
}

/** Whether a failed request only timed out (the debugger gave up waiting for the Lua side). */
export function isRequestTimeout(error: unknown): boolean {
  return (
    error instanceof DapRequestError &&
    (error.timedOut || error.errorId === SESSION_ERRORS['request-timeout'])
  );
}

/**
 * Whether `error` is the debugger saying a pause waits for LuaJIT-compiled code to end (the
 * pause stays pending). Through VS Code's debug API only the message survives, so it is
 * recognised by its text as well as by the DAP error id.
 */
export function isCompiledPause(error: unknown): boolean {
  if (
    error instanceof DapRequestError &&
    error.errorId === SESSION_ERRORS['pause-in-compiled-code']
  ) {
    return true;
  }
  return error instanceof Error && error.message.includes(COMPILED_PAUSE_MESSAGE);
}
