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
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { LuaListener, initSuccessInfo } from '../src/protocol';
import { nativeCpathEnv, nativeDirFor } from '../src/session/nativeBuilds';
import { quietPort } from '../test/harness/ports';
import { printMarkdownTable } from './markdownTable';

const ROOT = path.resolve(__dirname, '..', '..');
const BUNDLE_DIR = path.join(ROOT, 'dist', 'lua');
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'runtime');
const BENCH_LUA = path.join(FIXTURES, 'bench.lua');
const NATIVE_DIR = nativeDirFor(BUNDLE_DIR);
const RUNS = Number(process.env.LUAPANDA_BENCH_RUNS ?? 5);

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
  const lines = fs.readFileSync(BENCH_LUA, 'utf8').split('\n');
  return lines.findIndex((l) => l.includes(`@${marker}`)) + 1;
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

function luaEnv(native: boolean): NodeJS.ProcessEnv {
  const extra = `${path.join(BUNDLE_DIR, '?.lua')};;`;
  return {
    ...process.env,
    LUA_PATH: extra,
    LUA_PATH_5_4: extra,
    LUA_PATH_5_3: extra,
    LUA_PATH_5_2: extra,
    ...(native && NATIVE_DIR ? nativeCpathEnv(NATIVE_DIR, process.env) : {}),
  };
}

function runLua(
  lua: string,
  args: string[],
  native: boolean,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(lua, [BENCH_LUA, ...args], {
      env: luaEnv(native),
      cwd: FIXTURES,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function parseTime(
  out: { code: number | null; stdout: string; stderr: string },
  kase: Case,
  lua: string,
): number {
  const m = /TIME (\d+\.\d+)/.exec(out.stdout);
  if (!m) throw new Error(`benchmark run failed (code ${out.code}): ${out.stderr.slice(-300)}`);
  const attached = kase.situation !== 'plain' && kase.situation !== 'detached';
  if (attached && kase.native && !/NATIVE true/.test(out.stdout)) {
    throw new Error(
      `${lua}: the native accelerator was not in use for "${kase.label}" ` +
        '(run `npm run compile`, which builds it, and see LuaPanda.doctor())',
    );
  }
  return Number(m[1]);
}

async function runCase(lua: string, kase: Case, workload: Workload, size: number): Promise<number> {
  const native = kase.native ? '1' : '0';
  const { situation } = kase;
  if (situation === 'plain')
    return parseTime(
      await runLua(lua, ['none', 'plain', workload, String(size), native], false),
      kase,
      lua,
    );
  if (situation === 'detached') {
    const port = await quietPort();
    return parseTime(
      await runLua(lua, [String(port), 'detached', workload, String(size), native], kase.native),
      kase,
      lua,
    );
  }
  const listener = await LuaListener.listen({ port: 0, host: '127.0.0.1' });
  try {
    const extra = situation === 'idleGc' ? ['0'] : [];
    const run = runLua(
      lua,
      [String(listener.port), 'attached', workload, String(size), native, ...extra],
      kase.native,
    );
    const connection = await listener.waitForConnection({ timeoutMs: 10_000 });
    await connection.request(
      'initSuccess',
      initSuccessInfo({ cwd: FIXTURES, isNeedB64EncodeStr: false, waitConfigurationDone: true }),
    );
    if (situation === 'bpElsewhere' || situation === 'bpSameFunction') {
      const line = lineOf(situation === 'bpElsewhere' ? 'never' : NEVER_LINE[workload]);
      await connection.request('setBreakPoint', { path: BENCH_LUA, bks: [{ type: 2, line }] });
    }
    await connection.request('configurationDone', {});
    const result = await run;
    connection.destroy();
    return parseTime(result, kase, lua);
  } finally {
    await listener.close();
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function available(command: string): boolean {
  return spawnSync(command, ['-e', 'require("socket")'], { timeout: 10_000 }).status === 0;
}

export async function runRuntimeBench(): Promise<void> {
  // LUAPANDA_BENCH_LUA=lua5.4,luajit limits the interpreters (while iterating on one).
  const only = process.env.LUAPANDA_BENCH_LUA?.split(',');
  const interpreters = Object.keys(SIZES).filter(
    (lua) => (!only || only.includes(lua)) && available(lua),
  );
  console.log(
    `\nLua runtime overhead (CPU time inside Lua, median of ${RUNS} runs, ratio to plain Lua in the same run;` +
      ` pure = pure-Lua hook, native = native accelerator)`,
  );
  if (!NATIVE_DIR) {
    throw new Error('No native accelerator build in dist/native: run `npm run compile` first.');
  }
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
