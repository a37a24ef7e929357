/**
 * What the benches of the Lua runtime share (bench/runtime.ts, bench/gameLoop.ts): running a
 * fixture program plain or under dist/lua/LuaPanda.lua with an IDE played by `LuaListener`,
 * reading the CPU time the program measured itself, refusing a native cell that ran without the
 * accelerator, medians, and which interpreters to use (LUAPANDA_BENCH_LUA, LUAPANDA_BENCH_RUNS).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { LuaConnection, LuaListener, LuaNotification, initSuccessInfo } from '../src/protocol';
import { nativeCpathEnv, nativeDirFor } from '../src/session/link/nativeBuilds';
import { loveMissing } from '../test/love/loveSetup';
import { signalGroup } from '../test/love/processGroup';

const ROOT = path.resolve(__dirname, '..', '..');
export const BUNDLE_DIR = path.join(ROOT, 'dist', 'lua');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'runtime');
const NATIVE_DIR = nativeDirFor(BUNDLE_DIR);
/**
 * The engine column: a real LÖVE 11 (its LuaJIT, heap and loop) runs a fixture's frame function
 * as love.update (test/fixtures/love/bench), under a virtual X server.
 */
export const LOVE = 'love';
const LOVE_BENCH = path.join(ROOT, 'test', 'fixtures', 'love', 'bench');
/** A LÖVE run not ended after this long is stopped, group-wide (Xvfb too), and fails. */
const LOVE_RUN_BOUND_MS = 300_000;
/** Runs per cell (the median is reported). */
export const RUNS = Number(process.env.LUAPANDA_BENCH_RUNS ?? 5);

export interface LuaRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** The 1-based line of `-- @marker` in a fixture of test/fixtures/runtime. */
export function markerLine(script: string, marker: string): number {
  const lines = fs.readFileSync(script, 'utf8').split('\n');
  const index = lines.findIndex((l) => new RegExp(`--.*@${marker}\\b`).test(l));
  if (index < 0) throw new Error(`No @${marker} in ${script}`);
  return index + 1;
}

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

/**
 * Runs `script` under `lua` (the accelerator on package.cpath when `native`) to its end;
 * `extraEnv` is laid over its environment (another C module on package.cpath…).
 */
export function runLua(
  lua: string,
  script: string,
  args: string[],
  native: boolean,
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<LuaRun> {
  if (lua === LOVE) return runLove(script, args, native, extraEnv);
  return new Promise((resolve) => {
    const child = spawn(lua, [script, ...args], {
      env: { ...luaEnv(native), ...extraEnv },
      cwd: FIXTURES,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    // (A command that cannot start: said in the run's stderr; 'close' follows.)
    child.on('error', (error) => (stderr += `\n${lua}: ${error.message}`));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * `script` (a fixture that offers its frame function to an engine) as LÖVE's love.update, with
 * the same arguments; in a process group of its own, since xvfb-run starts Xvfb and LÖVE as its
 * children, stopped whole should it outlive LOVE_RUN_BOUND_MS.
 */
function runLove(
  script: string,
  args: string[],
  native: boolean,
  extraEnv: NodeJS.ProcessEnv,
): Promise<LuaRun> {
  return new Promise((resolve) => {
    const gameArgs = [`script=${path.resolve(FIXTURES, script)}`, `args=${args.join(',')}`];
    const child = spawn('xvfb-run', ['-a', 'love', LOVE_BENCH, ...gameArgs], {
      env: {
        ...luaEnv(native),
        // No sound card on bench machines (conf.lua turns audio off too).
        SDL_AUDIODRIVER: 'dummy',
        // Mesa's software renderer draws in the main thread: os.clock, which counts every
        // thread of the process, then times love.update alone.
        LP_NUM_THREADS: '0',
        ...extraEnv,
      },
      cwd: FIXTURES,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const bound = setTimeout(() => {
      stderr += `\n(stopped after ${LOVE_RUN_BOUND_MS} ms)`;
      if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    }, LOVE_RUN_BOUND_MS);
    child.stdout.setEncoding('utf8').on('data', (t: string) => (stdout += t));
    child.stderr.setEncoding('utf8').on('data', (t: string) => (stderr += t));
    child.on('error', (error) => (stderr += `\nxvfb-run: ${error.message}`));
    child.on('close', (code) => {
      clearTimeout(bound);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface AttachedOptions {
  /** Called after the handshake, before `configurationDone` (to set breakpoints). */
  configure?: (connection: LuaConnection) => Promise<void>;
  /** Every notification the runtime sends while the program runs (logpoint output…). */
  onNotification?: (notification: LuaNotification) => void;
  /** Laid over the program's environment. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs `script` with an IDE listening on a free port (passed as the program's first argument,
 * before `args`): accepts it, completes the handshake, lets `configure` set breakpoints, and
 * reads everything the runtime sends until the program ends.
 */
export async function runAttached(
  lua: string,
  script: string,
  args: string[],
  native: boolean,
  options: AttachedOptions = {},
): Promise<LuaRun> {
  const listener = await LuaListener.listen({ port: 0, host: '127.0.0.1' });
  try {
    const run = runLua(lua, script, [String(listener.port), ...args], native, options.env);
    const connection = await listener.waitForConnection({ timeoutMs: 10_000 });
    const { onNotification } = options;
    if (onNotification) connection.on('notification', onNotification);
    await connection.request(
      'initSuccess',
      initSuccessInfo({ cwd: FIXTURES, isNeedB64EncodeStr: false, waitConfigurationDone: true }),
    );
    await options.configure?.(connection);
    await connection.request('configurationDone', {});
    const result = await run;
    connection.destroy();
    return result;
  } finally {
    await listener.close();
  }
}

/**
 * The CPU seconds a run printed as "TIME <s>"; throws when the run failed, or when a run that
 * was to use the native accelerator (`needsNative`) says "NATIVE false": a pure-Lua number must
 * never be printed as a native one.
 */
export function timeOf(out: LuaRun, lua: string, label: string, needsNative: boolean): number {
  const m = /TIME (\d+\.\d+)/.exec(out.stdout);
  if (!m) throw new Error(`benchmark run failed (code ${out.code}): ${out.stderr.slice(-300)}`);
  if (needsNative && !/NATIVE true/.test(out.stdout)) {
    throw new Error(
      `${lua}: the native accelerator was not in use for "${label}" ` +
        '(run `npm run compile`, which builds it, and see LuaPanda.doctor())',
    );
  }
  return Number(m[1]);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function available(command: string): boolean {
  if (command === LOVE) return loveMissing() === undefined;
  return spawnSync(command, ['-e', 'require("socket")'], { timeout: 10_000 }).status === 0;
}

/**
 * Those of `candidates` present with luasocket, limited by LUAPANDA_BENCH_LUA=lua5.4,luajit
 * (while iterating on one). Throws when the native accelerator was not built: every bench of
 * the runtime has native cells.
 */
export function benchInterpreters(candidates: readonly string[]): string[] {
  if (!NATIVE_DIR) {
    throw new Error('No native accelerator build in dist/native: run `npm run compile` first.');
  }
  const only = process.env.LUAPANDA_BENCH_LUA?.split(',');
  return candidates.filter((lua) => (!only || only.includes(lua)) && available(lua));
}
