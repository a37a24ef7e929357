/**
 * What a program can still tell, on purpose and documented (Docs/Doc_Common.md, "What a program
 * can still see"): each entry names the programs, the runs and the stdout lines that may differ,
 * and why. Everything else of those runs (other lines, stderr, the exit status) is still compared,
 * and an entry marked `always` must keep happening, so the list cannot outlive what it describes.
 */
import type { LuaInterpreter } from '../harness/interpreters';
import type { ModeName } from './modes';

export interface KnownDifference {
  readonly program: string;
  /** The runs it applies to (`launch`: a run as launch mode runs the program, through runFile). */
  applies(lua: LuaInterpreter, mode: ModeName, launch: boolean): boolean;
  /** Stdout lines that may differ (all of stdout when absent). */
  readonly lines?: RegExp;
  /** It must differ in every run it applies to (a fixed difference fails the list). */
  readonly always: boolean;
  readonly why: string;
}

const ATTACHED: ModeName[] = [
  'attached',
  'bp-elsewhere',
  'bp-hit',
  'condition',
  'stepping',
  'fn-bp',
  'collect',
];
const attached = (mode: ModeName) => ATTACHED.includes(mode);
const pure = (lua: LuaInterpreter) => !lua.native;
const is51 = (lua: LuaInterpreter) => !lua.isLuaJIT && /Lua 5\.1/.test(lua.version);

const LUA_REPLACEMENTS =
  'Without the native accelerator, the library functions the runtime replaces while attached ' +
  '(coroutine.create/resume/wrap, debug.sethook/gethook, jit.on/off/status) are Lua functions: ' +
  "debug.getinfo(f).what is 'Lua', and a call hook of the program sees their C calls differently. " +
  'With the accelerator they are C functions.';
const LUA_HOOK_LEVEL =
  'A hook function written in Lua takes one C-stack level while it runs (the interpreter calls ' +
  'it through C): a recursion through C callbacks fails one level earlier. The native ' +
  "accelerator's C hook takes none, except while stepping (steps run the Lua hook).";
const TAIL_CALL_51 =
  "Without the native accelerator, the runtime hands the program's own hook its events by a " +
  'tail call; Lua 5.1 shows a "(tail call)" level where the code that fired the event would be.';
const HOOK_BY_TAIL_CALL =
  "Without the native accelerator (and on LuaJIT with it), the runtime hands the program's own hook its events by a " +
  'tail call from its Lua hook: inside it, debug.getinfo(1) says istailcall = true and no name ' +
  '(where plain it is namewhat "hook", name "?" on 5.3/5.4, or the name of what the interrupted ' +
  'instruction called on 5.1/5.2/LuaJIT), and a traceback shows "in function <…>" and ' +
  '"(...tail calls...)" for it. Only the C hook of the native accelerator can call a function ' +
  'the way the interpreter calls a hook (debug.getinfo names a hook by how it was called, and ' +
  'only the function called by the hook itself counts as one); on LuaJIT it is not used yet.';
const COUNT_SHIFT =
  "A count hook of the program counts the instructions of the runtime's Lua hook too (on a " +
  'thread where the program has a hook of its own the runtime uses its Lua hook), so its events ' +
  'come at other places.';
const JIT_LINES =
  "LuaJIT: with the runtime's hook in place, a line hook of the program can see a line again " +
  'when a call returns into it.';

const ALLOCATES_DURING_CYCLE =
  "The runtime allocates while the program runs attached: the pure-Lua hook's debug.getinfo " +
  'makes a table per event it looks at (a call hook sees every collectgarbage call), and the ' +
  "polls and the GC heartbeat's re-arming (LuaJIT: also with the native accelerator) make a " +
  'little more. A program that compares collectgarbage("count") before and after a collection ' +
  "cycle that frees only a few kilobytes of its own may see the runtime's garbage outweigh them. " +
  "The native accelerator's C hook (PUC Lua) allocates nothing on its way.";

const FINALIZER_AT_CSTACK_LIMIT =
  "The runtime's GC heartbeat is an object with a finalizer, one per collection cycle. Lua 5.1–5.3 " +
  'and LuaJIT count a finalizer call as a C-stack level and raise the errors of finalizers: a ' +
  'collection that ends exactly when a runaway error handler, or a recursion through C callbacks, ' +
  'has filled the C stack fails in the finalizer call, and the program sees "error in __gc ' +
  'metamethod (…C stack overflow)" where it would see "error in error handling" or "C stack ' +
  'overflow". It depends on when the collection ends (rare; seen once in about 3,000 runs of ' +
  'each program). Lua 5.4 turns finalizer errors into warnings.';

const IDLE_COUNT_HOOK_51 =
  'Lua 5.1 without the native accelerator, while no IDE is attached: the runtime keeps a count ' +
  'hook on the main thread so that a running game is reached without tick() (idlepoll.lua), and ' +
  'until the program sets a hook of its own it replaces debug.gethook/sethook and ' +
  'coroutine.create/wrap with Lua functions that hide it. ' +
  LUA_REPLACEMENTS.replace('while attached ', '');

const PROGRAM_COUNT_HOOK_STARVED =
  'An open finding, not a design choice: without the native accelerator, a count hook the ' +
  'program sets on the main thread while the runtime watches the lines of the running chunk (a ' +
  'breakpoint in it, a step) receives far fewer count events than plain (under 50 where plain ' +
  'gets about 500 in a loop of 100,000 iterations). Found by idle_hooks.lua; the cause is not ' +
  'known yet.';

const COROUTINE_COUNT_HOOK_MISSED =
  'An open finding, not a design choice: a count hook the program sets on a coroutine (a ' +
  "sandbox's budget) fired one time fewer than plain in one of many runs (Lua 5.5 with the " +
  'native accelerator, a function breakpoint set): the same family as the starved count hook ' +
  'above; intermittent, cause not known yet.';

const RUNFILE_LEVELS =
  'Launch mode runs the program through LuaPanda.runFile, under its xpcall, so that every ' +
  'uncaught error stops with the stack intact: below the main chunk a stack walk or a traceback ' +
  "of the program sees runFile's levels (Lua, xpcall, tail calls) where a plain run has only the " +
  "interpreter's C frame, and a recursion through C callbacks fails a level earlier. What the " +
  'program prints when it dies is still exactly what it prints plain.';

export const KNOWN_DIFFERENCES: readonly KnownDifference[] = [
  ...[
    'close_errors.lua',
    'cstack_limit_probe.lua',
    'introspect_traceback.lua',
    'recursion_deep.lua',
    'stack_levels.lua',
    'xpcall_traceback.lua',
  ].map((program): KnownDifference => ({
    program,
    applies: (_lua, _mode, launch) => launch,
    always: false,
    why: RUNFILE_LEVELS,
  })),
  {
    program: 'error_in_handler.lua',
    applies: (lua) => lua.isLuaJIT || !/Lua 5\.4/.test(lua.version),
    lines: /^false\terror in (error handling|__gc metamethod)/,
    always: false,
    why: FINALIZER_AT_CSTACK_LIMIT,
  },
  {
    // 5.1 raises the finalizer's own "C stack overflow", the same text; LuaJIT skips these lines.
    program: 'recursion_gsub.lua',
    applies: (lua) => !lua.isLuaJIT && /Lua 5\.[23]/.test(lua.version),
    lines: /^(depth|pcall chain) 250\t/,
    always: false,
    why: FINALIZER_AT_CSTACK_LIMIT,
  },
  {
    program: 'cstack_limit_probe.lua',
    applies: (lua, mode) =>
      pure(lua)
        ? ['bp-elsewhere', 'bp-hit', 'condition', 'stepping', 'fn-bp', 'collect'].includes(mode)
        : mode === 'stepping',
    always: true,
    why: LUA_HOOK_LEVEL,
  },
  ...['introspect_getinfo.lua', 'stdlib_origin.lua'].map((program): KnownDifference => ({
    program,
    applies: (lua, mode) => pure(lua) && attached(mode),
    always: true,
    why: LUA_REPLACEMENTS,
  })),
  ...['hook_callret.lua', 'hook_coroutine.lua', 'hook_getinfo.lua'].map(
    (program): KnownDifference => ({
      program,
      applies: (lua, mode) => pure(lua) && attached(mode),
      always: false,
      why: LUA_REPLACEMENTS,
    }),
  ),
  {
    program: 'hook_callret.lua',
    applies: (lua, mode) => !pure(lua) && attached(mode),
    lines: /^(count hook ticks|line\+count)\t/,
    always: false,
    why: COUNT_SHIFT,
  },
  ...['hook_line.lua', 'hook_getinfo.lua', 'hook_coroutine.lua', 'hook_callret.lua'].map(
    (program): KnownDifference => ({
      program,
      applies: (lua, mode) => is51(lua) && pure(lua) && attached(mode),
      always: true,
      why: TAIL_CALL_51,
    }),
  ),
  ...['introspect_getinfo.lua', 'stdlib_origin.lua'].map((program): KnownDifference => ({
    program,
    applies: (lua, mode) => is51(lua) && pure(lua) && mode === 'no-ide',
    always: true,
    why: IDLE_COUNT_HOOK_51,
  })),
  ...['hook_callret.lua', 'hook_coroutine.lua'].map((program): KnownDifference => ({
    program,
    applies: (lua, mode) => is51(lua) && pure(lua) && mode === 'no-ide',
    always: false,
    why: IDLE_COUNT_HOOK_51,
  })),
  {
    program: 'idle_hooks.lua',
    applies: (lua, mode) =>
      pure(lua) && ['bp-hit', 'condition', 'stepping', 'collect'].includes(mode),
    lines: /^own hook ticks\t/,
    always: false,
    why: PROGRAM_COUNT_HOOK_STARVED,
  },
  {
    // Seen once in a full run (lua5.5 native, fn-bp: 19 budget calls where plain has 20); not
    // reproduced yet, so it is allowed, never required, until its cause is found.
    program: 'idle_hooks.lua',
    applies: (_lua, mode) => attached(mode),
    lines: /^(sandboxed|later coroutines)\t/,
    always: false,
    why: COROUTINE_COUNT_HOOK_MISSED,
  },
  {
    program: 'gc_steps.lua',
    applies: (lua, mode) => (pure(lua) || lua.isLuaJIT) && attached(mode),
    lines: /^freed\t/,
    always: false,
    why: ALLOCATES_DURING_CYCLE,
  },
  {
    program: 'hook_namewhat.lua',
    applies: (lua, mode) => (pure(lua) || lua.isLuaJIT) && attached(mode),
    lines: /^([a-z]*\/|\t|(call|return) )/,
    always: false,
    why: HOOK_BY_TAIL_CALL,
  },
  {
    program: 'hook_coroutine.lua',
    applies: (lua, mode) => lua.isLuaJIT && attached(mode),
    always: false,
    why: JIT_LINES,
  },
];

/** The documented differences that apply to one run. */
export function knownFor(
  program: string,
  lua: LuaInterpreter,
  mode: ModeName,
  launch = false,
): KnownDifference[] {
  return KNOWN_DIFFERENCES.filter((d) => d.program === program && d.applies(lua, mode, launch));
}
