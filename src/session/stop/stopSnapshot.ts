/**
 * Turns a stop notification into the session's `StopInfo`: a reason, frames with handles and
 * workspace paths, the thread (coroutine) that stopped, the breakpoints that fired and the error
 * text of an exception stop. Thread ids are stable for the life of the session.
 */
import type { LuaStackFrame, StopCommand } from '../../protocol';
import type { BreakpointStore } from '../breakpoints/breakpoints';
import type { FunctionNames } from './functionNames';
import type { HandleTable } from './handles';
import { SourceMapper, baseName } from '../paths';
import type { CaughtSite, Frame, StopInfo, StopReason, Thread } from '../types';

/** Upstream's constant frame name ("file name"); shown as the file's name instead. */
const UPSTREAM_FRAME_NAME = '文件名';
export const MAIN_THREAD_ID = 1;

const REASONS: Record<StopCommand, StopReason> = {
  stopOnEntry: 'entry',
  stopOnBreakpoint: 'breakpoint',
  stopOnCodeBreakpoint: 'breakpoint',
  stopOnStep: 'step',
  stopOnStepIn: 'step',
  stopOnStepOut: 'step',
  stopOnException: 'exception',
  stopOnPause: 'pause',
};

const DESCRIPTIONS: Record<StopReason, string> = {
  entry: 'Paused on entry',
  breakpoint: 'Paused on breakpoint',
  step: 'Paused after step',
  pause: 'Paused',
  exception: 'Paused on exception',
};

/** Coroutines by the name the runtime gives them; the main thread is always 1. */
export class ThreadRegistry {
  private next = MAIN_THREAD_ID + 1;
  private readonly ids = new Map<string, number>();

  idOf(coroutine: string | undefined): number {
    if (coroutine === undefined || coroutine === '' || coroutine === 'main') return MAIN_THREAD_ID;
    let id = this.ids.get(coroutine);
    if (id === undefined) {
      id = this.next++;
      this.ids.set(coroutine, id);
    }
    return id;
  }

  /** The main thread plus the coroutines on the current stack. */
  list(frames: readonly Frame[]): Thread[] {
    const threads: Thread[] = [{ id: MAIN_THREAD_ID, name: 'main' }];
    for (const [name, id] of this.ids) {
      if (frames.some((f) => f.threadId === id)) threads.push({ id, name: `coroutine ${name}` });
    }
    return threads;
  }
}

export interface StopContext {
  readonly mapper: SourceMapper;
  /** Names frames as their definitions do (optional: Lua's call-site names otherwise). */
  readonly names?: FunctionNames;
  readonly frames: HandleTable<Frame>;
  readonly threads: ThreadRegistry;
  readonly breakpoints: BreakpointStore;
  /** Ids of the function breakpoints of these names (a stop's `hitFunctions`). */
  readonly functionBreakpointIds?: (names: readonly string[]) => number[];
  /** A pause was asked for with step-in emulation, so a step stop is really the pause. */
  readonly pauseEmulated: boolean;
}

export interface StopNotification {
  readonly cmd: StopCommand;
  readonly stack: readonly LuaStackFrame[];
  readonly info: {
    exceptionText?: string;
    uncaught?: boolean;
    hitLines?: number[];
    hitFunctions?: string[];
    caughtAt?: { file: string; oPath?: string; line: number };
  };
}

export function buildStop(stop: StopNotification, context: StopContext): StopInfo {
  // Frames without a line are Lua 5.1's "(tail call)" markers: nothing to show or inspect.
  const frames = stop.stack.filter((raw) => raw.line > 0).map((raw) => toFrame(raw, context));
  let reason = REASONS[stop.cmd];
  if (reason === 'step' && context.pauseEmulated) reason = 'pause';
  const top = frames[0];
  let hitBreakpointIds: number[] = [];
  const hitFunctions = stop.info.hitFunctions;
  if (reason === 'breakpoint' && hitFunctions !== undefined) {
    // A function breakpoint's stop: a line breakpoint on the same line did not fire with it.
    hitBreakpointIds = context.functionBreakpointIds?.(hitFunctions) ?? [];
  } else if (reason === 'breakpoint' && top?.path !== undefined) {
    hitBreakpointIds = context.breakpoints.idsAt(top.path, stop.info.hitLines ?? [top.line]);
  }
  const exceptionText = stop.info.exceptionText;
  const caughtAt = caughtSiteOf(stop, context);
  let description = DESCRIPTIONS[reason];
  if (stop.cmd === 'stopOnCodeBreakpoint') description = 'Paused on LuaPanda.BP()';
  if (reason === 'exception' && exceptionText !== undefined) {
    description = `Paused on ${stop.info.uncaught === false ? 'caught' : 'uncaught'} error: ${exceptionText}`;
  }
  return {
    reason,
    description,
    cmd: stop.cmd,
    threadId: top?.threadId ?? MAIN_THREAD_ID,
    frames,
    hitBreakpointIds,
    exceptionText,
    uncaught: stop.info.uncaught,
    ...(caughtAt ? { caughtAt } : {}),
    timestamp: new Date().toISOString(),
  };
}

/** Where a caught error is caught, mapped to a workspace file as the frames are. */
function caughtSiteOf(stop: StopNotification, context: StopContext): CaughtSite | undefined {
  const at = stop.info.caughtAt;
  if (stop.info.uncaught !== false || at === undefined || !(at.line > 0)) return undefined;
  const path = context.mapper.resolve({ file: at.file, oPath: at.oPath });
  const chunk = at.oPath !== undefined && at.oPath !== '' ? at.oPath : at.file;
  return path !== undefined ? { path, chunk, line: at.line } : { chunk, line: at.line };
}

/**
 * A breakpoint stop in a file that has no breakpoint on that line, while a same-named file does,
 * is the Lua side matching by file name (autoPathMode): the `continue` info that tells it so
 * (upstream's "fake hit", protocol doc 10.5, which also resumes a step in progress), else none.
 */
export function sameNameFakeHit(
  stop: StopNotification,
  mapper: SourceMapper,
  breakpoints: BreakpointStore,
): { isFakeHit: 'true'; fakeBKPath: string; fakeBKLine: string } | undefined {
  const top = stop.stack[0];
  if (stop.cmd !== 'stopOnBreakpoint' || !top || stop.info.hitFunctions) return undefined;
  const path = mapper.resolve({ file: top.file, oPath: top.oPath });
  if (path === undefined || !breakpoints.isSameNameMismatch(path, top.line)) return undefined;
  return { isFakeHit: 'true', fakeBKPath: top.oPath ?? top.file, fakeBKLine: String(top.line) };
}

function toFrame(raw: LuaStackFrame, context: StopContext): Frame {
  const chunk = raw.oPath !== undefined && raw.oPath !== '' ? raw.oPath : raw.file;
  const path = context.mapper.resolve({ file: raw.file, oPath: raw.oPath });
  const callSite =
    raw.name === undefined || raw.name === '' || raw.name === UPSTREAM_FRAME_NAME
      ? baseName(path ?? raw.file)
      : raw.name;
  const name =
    raw.defined !== undefined || raw.module !== undefined
      ? (context.names?.frameName(path, raw.defined, raw.module, callSite) ?? callSite)
      : callSite;
  const threadId = context.threads.idOf(raw.coroutine);
  return context.frames.allocate((id) => ({
    id,
    name,
    path,
    chunk,
    line: raw.line,
    threadId,
    luaIndex: raw.index,
    ...(raw.defined !== undefined ? { defined: raw.defined } : {}),
  }));
}
