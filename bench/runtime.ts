/**
 * Slowdown of the Lua runtime (dist/lua/LuaPanda.lua) against plain Lua, measured side by side in
 * one run: call-heavy, loop-heavy and recursive workloads under lua5.4, lua5.1 and luajit (those
 * present), in the cases of issue 3 — attached with no breakpoints; attached with a breakpoint in
 * a function that never runs; attached with a breakpoint in the running function on a line never
 * reached — each with the pure-Lua hook and with the native accelerator (dist/native, see
 * native/), plus started with no IDE listening, and "idle, light mode": attached, no breakpoints,
 * pure Lua with `pollInstructions = 0` (commands noticed only at garbage-collection cycles) and,
 * under LuaJIT, `jitOffWhileAttached = false` (the compiler stays on): fast, but a loop that
 * neither allocates nor leaves its trace cannot be paused.
 * CPU time is measured inside the Lua program (os.clock around the workload only); each cell is
 * the median of several runs divided by the median of plain runs interleaved with them. A native
 * cell that did not get the accelerator fails the run instead of printing a pure-Lua number.
 * Run alone: `node out/bench/runtime.js` (after `npm run compile`); LUAPANDA_BENCH_RUNS=3 and
 * LUAPANDA_BENCH_LUA=lua5.4,luajit make it shorter.
 */
import * as path from 'node:path';
import { quietPort } from '../test/harness/ports';
import {
  FIXTURES,
  LuaRun,
  RUNS,
  benchInterpreters,
  markerLine,
  median,
  runAttached,
  runLua,
  timeOf,
} from './luaRuns';
import { printMarkdownTable } from './markdownTable';

const BENCH_LUA = path.join(FIXTURES, 'bench.lua');

type Situation = 'plain' | 'idle' | 'idleGc' | 'bpElsewhere' | 'bpSameFunction' | 'detached';
/** A situation run with the pure-Lua hook or with the native accelerator. */
interface Case {
  readonly situation: Situation;
  readonly native: boolean;
  readonly label: string;
}
const CASES: Case[] = [
  { situation: 'idle', native: false, label: 'no bp, pure' },
  { situation: 'idle', native: true, label: 'no bp, native' },
  { situation: 'bpElsewhere', native: false, label: 'bp in fn never run, pure' },
  { situation: 'bpElsewhere', native: true, label: 'bp in fn never run, native' },
  { situation: 'bpSameFunction', native: false, label: 'bp in running fn, pure' },
  { situation: 'bpSameFunction', native: true, label: 'bp in running fn, native' },
  { situation: 'detached', native: true, label: 'no IDE' },
  { situation: 'idleGc', native: false, label: 'idle, light mode' },
];
const PLAIN: Case = { situation: 'plain', native: false, label: 'plain' };
const WORKLOADS = ['call', 'loop', 'recursive'] as const;
type Workload = (typeof WORKLOADS)[number];

/** Sizes chosen so that plain runs take roughly 0.1–0.3 s (shorter ones scatter too much). */
const SIZES: Record<string, Record<Workload, number>> = {
  'lua5.4': { call: 5_000_000, loop: 10_000_000, recursive: 31 },
  'lua5.1': { call: 4_000_000, loop: 8_000_000, recursive: 30 },
  luajit: { call: 200_000_000, loop: 50_000_000, recursive: 34 },
};

function lineOf(marker: string): number {
  return markerLine(BENCH_LUA, marker);
}

/** Cases that are much slower run a smaller problem and are compared per unit of work. */
const SLOW_CASES: ReadonlySet<Situation> = new Set<Situation>(['bpElsewhere', 'bpSameFunction']);
interface Scale {
  linear: number; // call and loop sizes are divided by this
  fibDepth: number; // the recursion is this much shallower
}
const SLOW_SCALE: Record<string, { pure: Scale; native: Scale }> = {
  'lua5.4': { pure: { linear: 20, fibDepth: 6 }, native: { linear: 4, fibDepth: 3 } },
  'lua5.1': { pure: { linear: 20, fibDepth: 6 }, native: { linear: 4, fibDepth: 3 } },
  luajit: { pure: { linear: 400, fibDepth: 12 }, native: { linear: 100, fibDepth: 9 } },
};

function fibCalls(n: number): number {
  let a = 1;
  let b = 1; // calls(0) = calls(1) = 1; calls(n) = calls(n-1) + calls(n-2) + 1
  for (let i = 2; i <= n; i++) [a, b] = [b, a + b + 1];
  return n < 1 ? 1 : b;
}

function sizeFor(lua: string, workload: Workload, kase: Case): number {
  const size = SIZES[lua][workload];
  if (!SLOW_CASES.has(kase.situation)) return size;
  const scale = SLOW_SCALE[lua][kase.native ? 'native' : 'pure'];
  return workload === 'recursive' ? size - scale.fibDepth : Math.floor(size / scale.linear);
}

/** Units of work of a run (iterations or calls), to compare runs of different sizes. */
function unitsOf(workload: Workload, size: number): number {
  return workload === 'recursive' ? fibCalls(size) : size;
}

const NEVER_LINE: Record<Workload, string> = {
  call: 'callNever',
  loop: 'loopNever',
  recursive: 'fibNever',
};

function parseTime(out: LuaRun, kase: Case, lua: string): number {
  const attached = kase.situation !== 'plain' && kase.situation !== 'detached';
  return timeOf(out, lua, kase.label, attached && kase.native);
}

async function runCase(lua: string, kase: Case, workload: Workload, size: number): Promise<number> {
  const native = kase.native ? '1' : '0';
  const { situation } = kase;
  const args = [workload, String(size), native];
  if (situation === 'plain') {
    return parseTime(await runLua(lua, BENCH_LUA, ['none', 'plain', ...args], false), kase, lua);
  }
  if (situation === 'detached') {
    const port = String(await quietPort());
    const out = await runLua(lua, BENCH_LUA, [port, 'detached', ...args], kase.native);
    return parseTime(out, kase, lua);
  }
  const extra = situation === 'idleGc' ? ['0'] : [];
  const out = await runAttached(lua, BENCH_LUA, ['attached', ...args, ...extra], kase.native, {
    configure: async (connection) => {
      if (situation !== 'bpElsewhere' && situation !== 'bpSameFunction') return;
      const line = lineOf(situation === 'bpElsewhere' ? 'never' : NEVER_LINE[workload]);
      await connection.request('setBreakPoint', { path: BENCH_LUA, bks: [{ type: 2, line }] });
    },
  });
  return parseTime(out, kase, lua);
}

export async function runRuntimeBench(): Promise<void> {
  const interpreters = benchInterpreters(Object.keys(SIZES));
  console.log(
    `\nLua runtime overhead (CPU time inside Lua, median of ${RUNS} runs, ratio to plain Lua in the same run;` +
      ` pure = pure-Lua hook, native = native accelerator)`,
  );
  const header = ['interpreter', 'workload', 'plain', ...CASES.map((c) => c.label)];
  const rows: string[][] = [];
  for (const lua of interpreters) {
    for (const workload of WORKLOADS) {
      // Seconds per unit of work, per case (index into CASES; -1 = plain).
      const plainTimes: number[] = [];
      const times: number[][] = CASES.map(() => []);
      for (let run = 0; run < RUNS; run++) {
        const size = sizeFor(lua, workload, PLAIN);
        plainTimes.push((await runCase(lua, PLAIN, workload, size)) / unitsOf(workload, size));
        for (const [i, kase] of CASES.entries()) {
          const caseSize = sizeFor(lua, workload, kase);
          times[i].push(
            (await runCase(lua, kase, workload, caseSize)) / unitsOf(workload, caseSize),
          );
        }
      }
      const plain = median(plainTimes);
      const plainRun = plain * unitsOf(workload, SIZES[lua][workload]);
      rows.push([
        lua,
        workload,
        `${(plainRun * 1000).toFixed(0)} ms`,
        ...times.map((t) => `×${(median(t) / plain).toFixed(2)}`),
      ]);
    }
  }
  printMarkdownTable(header, rows);
}

if (require.main === module) {
  runRuntimeBench().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
