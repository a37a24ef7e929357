/**
 * How a process ended, in words and as one number: a program killed by a signal is reported by
 * the signal's name ("killed by signal SIGSEGV"), never as a made-up exit code; where a protocol
 * wants a number (DAP's `exited` event) it gets the shell's convention, 128 + the signal number.
 */
import * as os from 'node:os';

export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** "exited with code 1", "was killed by signal SIGKILL" — to follow "The program …". */
export function describeExit(exit: ExitStatus): string {
  if (exit.signal) return `was killed by signal ${exit.signal}`;
  if (exit.code !== null) return `exited with code ${exit.code}`;
  return 'ended (exit status unknown)';
}

/** The exit status as one number: the code, or 128 + the signal's number (137 for SIGKILL). */
export function exitNumber(exit: ExitStatus): number {
  if (exit.signal) return 128 + (os.constants.signals[exit.signal] ?? 0);
  return exit.code ?? 1;
}
