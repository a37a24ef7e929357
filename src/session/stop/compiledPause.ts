/**
 * A pause under LuaJIT with its compiler on (runtime feature `jitCompiles`). Compiled code runs
 * no debug hook, so the runtime reads the pause only when the program leaves compiled code (a
 * call into the interpreter, a garbage-collection step, the end of the loop): the pause stays
 * pending and takes effect then. When it has not been answered within the bound, the caller is
 * told exactly that, and how to make pause work anywhere.
 */
import { withTimeout } from '../../common/async';
import { SessionError } from '../errors';

export const COMPILED_PAUSE_MESSAGE =
  'The pause is pending: the program is running LuaJIT-compiled code (or a long call into C), ' +
  'which runs no debug hook, so it stops when it leaves compiled code (a call the compiler does ' +
  'not inline, a garbage collection step, the end of the loop). With the native accelerator ' +
  "(luapanda_native51 on the game's package.cpath) LuaJIT's profiler lets the runtime reach " +
  'compiled code and pause stops at once (unless LuaPanda.settings.jitProfiler = false, or the ' +
  'program runs jit.profile itself). Without it, call LuaPanda.tick() once per frame, or set ' +
  'LuaPanda.settings.jitOffWhileAttached = true in the program (before start()) to keep the ' +
  'compiler off while the debugger is attached, so that pause stops anywhere.';

/**
 * Waits for the runtime's answer to a pause for at most `boundMs`; then rejects with a
 * 'pause-in-compiled-code' error while the request itself stays pending (its answer, or the
 * link's end, settles it later without anyone waiting).
 */
export async function pauseCompiledCode(answer: Promise<unknown>, boundMs: number): Promise<void> {
  const answered = await withTimeout(
    answer.then(() => true),
    boundMs,
  );
  if (!answered) {
    answer.catch(() => undefined); // settled later: the link ended, or the pause took effect
    throw new SessionError('pause-in-compiled-code', COMPILED_PAUSE_MESSAGE);
  }
}
