/**
 * The floor rows of the game-loop bench (bench/gameLoop.ts): the same frame loop with no debugger,
 * but paying what any debugger that hooks the way ours does must pay — the runtime loaded and
 * never started (its memory makes every collection longer), an empty Lua call hook and one that
 * reads the called function with debug.getinfo (the least the pure-Lua hook pays watching calls:
 * there is no other way to know the function), an empty Lua line hook and one that does what
 * the line filter does on a line without breakpoints on every thread, coroutines included (the
 * least it pays watching lines: a table index and a count toward the tick that polls), empty C
 * hooks on calls, on calls reading the
 * called function (the least a per-function breakpoint verdict needs), on lines (what a line
 * filter in C would pay) and on calls, returns and lines (a breakpoint in the running function),
 * and, under LuaJIT, its compiler off (where any hook sends the code). An aim
 * below its floor cannot be met by this design; the rows say so.
 * The C hooks are bench/native/floorhooks.c, built by scripts/build-floorhooks.mjs (never shipped).
 */
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { nativeCpathEnv } from '../src/session/link/nativeBuilds';
import { LOVE } from './luaRuns';

export interface FloorSpec {
  /** What the fixture's floor mode sets up (test/fixtures/runtime/bench_gameloop.lua). */
  readonly kind: string;
  readonly label: string;
  /** Needs bench/native/floorhooks.c. */
  readonly cHook: boolean;
  /** Only under these interpreters (all when absent). */
  readonly only?: readonly string[];
  /** Slow floors run this many times fewer frames, per interpreter. */
  readonly divisors: Readonly<Record<string, number>>;
}

export const FLOORS: readonly FloorSpec[] = [
  { kind: 'loaded', label: 'floor: runtime loaded, never started', cHook: false, divisors: {} },
  {
    kind: 'luaCall',
    label: 'floor: empty Lua call hook',
    cHook: false,
    divisors: { 'lua5.4': 2, 'lua5.1': 2, luajit: 40, [LOVE]: 8 },
  },
  {
    kind: 'luaCallF',
    label: 'floor: Lua call hook reading the function',
    cHook: false,
    divisors: { 'lua5.4': 4, 'lua5.1': 4, luajit: 40, [LOVE]: 8 },
  },
  {
    kind: 'luaLine',
    label: 'floor: empty Lua line hook',
    cHook: false,
    divisors: { 'lua5.4': 4, 'lua5.1': 4, luajit: 40, [LOVE]: 8 },
  },
  {
    kind: 'luaFilter',
    label: 'floor: Lua line hook indexing a filter, counting, every thread',
    cHook: false,
    divisors: { 'lua5.4': 4, 'lua5.1': 4, luajit: 40, [LOVE]: 8 },
  },
  {
    kind: 'call',
    label: 'floor: empty C call hook',
    cHook: true,
    divisors: { luajit: 10, [LOVE]: 2 },
  },
  {
    kind: 'callf',
    label: 'floor: C call hook reading the function',
    cHook: true,
    divisors: { luajit: 10, [LOVE]: 2 },
  },
  {
    kind: 'lineOnly',
    label: 'floor: empty C line hook',
    cHook: true,
    divisors: { 'lua5.4': 2, 'lua5.1': 2, luajit: 20, [LOVE]: 4 },
  },
  {
    kind: 'line',
    label: 'floor: empty C call/return/line hook',
    cHook: true,
    divisors: { 'lua5.4': 2, 'lua5.1': 2, luajit: 20, [LOVE]: 4 },
  },
  {
    kind: 'jitOff',
    label: 'floor: LuaJIT compiler off, no hook',
    cHook: false,
    only: ['luajit', LOVE],
    divisors: { luajit: 10, [LOVE]: 2 },
  },
];

const ROOT = path.resolve(__dirname, '..', '..');

/** The C ABI of an interpreter's command (LuaJIT speaks 5.1's). */
function abiOf(lua: string): string {
  const m = /(\d)\.?(\d)$/.exec(lua);
  return m ? `${m[1]}.${m[2]}` : '5.1';
}

/**
 * Builds the floor hooks (when a compiler and headers are there) and returns, per interpreter
 * command, the environment that puts them on package.cpath, or undefined when not built.
 */
export function floorHookEnvs(interpreters: readonly string[]): Map<string, NodeJS.ProcessEnv> {
  const result = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'build-floorhooks.mjs')], {
    encoding: 'utf8',
  });
  const built = result.status === 0 ? (JSON.parse(result.stdout) as Record<string, string>) : {};
  if (result.status !== 0) process.stderr.write(result.stderr);
  const envs = new Map<string, NodeJS.ProcessEnv>();
  for (const lua of interpreters) {
    const dir = built[abiOf(lua)];
    if (dir) envs.set(lua, nativeCpathEnv(path.dirname(dir), process.env));
  }
  return envs;
}
