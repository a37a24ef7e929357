/**
 * Attach latency of the Lua runtime (dist/lua/LuaPanda.lua): a game called `start()` while no
 * IDE listened and runs on; how long after the IDE starts listening is its connection accepted,
 * and its reply to `initSuccess` received? Then the IDE detaches (stopRun and a graceful close,
 * as the adapter does) and listens again: the same for the re-attach.
 * Programs (test/scenarios/attach/attach_*.lua, the ones the attach tests use): "busy" allocates
 * all the time and never calls the runtime (the GC heartbeat attaches it); "idle" allocates
 * nothing and calls LuaPanda.tick() once per loop iteration; "engine" is shaped like a game in an
 * engine rather than like our mechanisms — a little Lua per frame, a 10 ms sleep, a small table a
 * frame, no tick() — with a small heap and with a game-sized one (30 MB), where garbage-collection
 * cycles come minutes apart. Each with the pure-Lua hook and with the native accelerator (its
 * wake timer; under LuaJIT, LuaJIT's profiler makes the compiled loop reachable), on lua5.4 and
 * luajit, at the default attachInterval (0.25 s on loopback), plus rows at attachInterval = 1
 * and 0.1 to show that the interval is what the latency is made of. A pure engine row whose game
 * did not connect within the bound counts it ("none in N s") instead of a latency.
 * The same in the test engine hosts (test/hosts/engine.c, built by `npm run compile` per
 * interpreter), as a game runs inside an engine: the host calls Update(dt) from C every frame and
 * resumes a job coroutine from C; its boot script (bench/engine/boot.lua) does a little Lua per
 * frame and no tick(); with the host's own heap and with 30 MB of ballast; pure and native.
 * The game retries at most once per attachInterval, so the latency is mostly the rest of its
 * current cycle: each listen comes at a moment spread evenly over the cycle (as an IDE started at
 * a random moment), and "past due" (from when the next attempt was due to the connection) shows
 * what the mechanism adds on top: the wait for a safe point (GC cycle, tick()) and the connect.
 * Every sample is a fresh listen; p50 and p95 (nearest rank); the variants run interleaved, two
 * games at a time (each spins a core; the machines here may have two).
 * Run alone: `node out/bench/attach.js` (after `npm run compile`); LUAPANDA_BENCH_ATTACH_RUNS=N
 * sets the games per variant (default 10, one attach and one re-attach each; about 1.5 min),
 * LUAPANDA_BENCH_LUA=lua5.4,luajit the interpreters ("none": engine hosts only);
 * LUAPANDA_BENCH_HOST_RUNS=N the games per native engine-host row (default 6; a third as many per
 * pure row, whose games may wait the whole bound), LUAPANDA_BENCH_HOSTS=lua5.1,lua5.4,luajit the
 * hosts ("none": none); with the defaults the engine-host rows take about 2 minutes more.
 */
import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { LuaConnection, LuaListener, initSuccessInfo } from '../src/protocol';
import { quietPort } from '../test/harness/ports';
import {
  HOST_NAMES,
  HostName,
  engineArgs,
  hostFile,
  hostMissing,
} from '../test/harness/engineHost';
import { nativeCpathEnv, nativeDirFor } from '../src/session/link/nativeBuilds';
import { printMarkdownTable } from './markdownTable';

const ROOT = path.resolve(__dirname, '..', '..');
const BUNDLE_DIR = path.join(ROOT, 'dist', 'lua');
const FIXTURES = path.join(ROOT, 'test', 'scenarios', 'attach');
/** The script root of the engine-host game (bench/engine/boot.lua). */
const HOST_ROOT = path.join(ROOT, 'bench', 'engine');
const NATIVE_DIR = nativeDirFor(BUNDLE_DIR);
const RUNS = Number(process.env.LUAPANDA_BENCH_ATTACH_RUNS ?? 10);
/** Games per engine-host row (each host game boots a whole engine; a 30 MB heap takes a while). */
const HOST_RUNS = Number(process.env.LUAPANDA_BENCH_HOST_RUNS ?? 6);
/** The engine hosts measured; "none" leaves them out. */
const HOSTS = (process.env.LUAPANDA_BENCH_HOSTS ?? 'lua5.1,lua5.4,luajit')
  .split(',')
  .filter((name) => name !== '' && name !== 'none');
const PARALLEL = 2;
/** Bound of every single wait (a game's start, a connection, an exit). */
const BOUND_MS = 10_000;

type Program = 'busy' | 'idle' | 'engine';
interface Variant {
  readonly lua: string;
  readonly program: Program;
  readonly native: boolean;
  /** LuaPanda.settings.attachInterval, seconds (undefined: the default). */
  readonly interval?: number;
  /** The engine program's heap, MB (an engine host's --ballast-mb). */
  readonly heapMb?: number;
  /**
   * The game runs in the test engine host embedding `lua` (test/hosts/engine.c, boot script
   * bench/engine/boot.lua) rather than in the stand-alone interpreter; its program is 'engine'.
   */
  readonly host?: boolean;
}

/** The runtime's attachInterval while the IDE is on this machine (lua/luapanda/attach.lua). */
const DEFAULT_INTERVAL_S = 0.25;
const intervalOf = (variant: Variant) => variant.interval ?? DEFAULT_INTERVAL_S;
/** Games per row of a pure engine row: each may wait the whole bound without connecting. */
const PURE_ENGINE_RUNS = 3;
/**
 * Games per pure engine-host row: a third of HOST_RUNS (2 by default), so that the rows whose
 * games wait the whole bound keep `npm run bench` short; LUAPANDA_BENCH_HOST_RUNS raises both.
 */
const pureHostRuns = () => Math.max(1, Math.round(HOST_RUNS / 3));
function runsOf(variant: Variant): number {
  if (variant.native) return variant.host ? HOST_RUNS : RUNS;
  if (variant.host) return pureHostRuns();
  return variant.program === 'engine' ? Math.min(RUNS, PURE_ENGINE_RUNS) : RUNS;
}
/** The interpreter column: the interpreter, or the engine host embedding it. */
const nameOf = (variant: Variant) => (variant.host ? `engine-${variant.lua}` : variant.lua);
/**
 * Upstream LuaPanda's attach to a running game in an engine of this shape (a little Lua per
 * frame from C, no tick(), a small heap), as reported in issue 30 — one figure per interpreter,
 * not measured here: upstream's file is not part of the repository.
 */
const UPSTREAM_ATTACH: Partial<Record<string, string>> = { 'lua5.4': '0.5 s', luajit: '1.3 s' };
/** Milliseconds. */
interface Sample {
  /** From the listen() call to the game's connection accepted. */
  readonly accepted: number;
  /** From the listen() call to the game's reply to initSuccess. */
  readonly reply: number;
  /** From the moment the game's next attempt was due (last attempt + interval) to accepted. */
  readonly pastDue: number;
}
/** undefined: the game did not connect within BOUND_MS; null: not measured (see runGame). */
interface GameResult {
  readonly attach: Sample | undefined;
  readonly reattach: Sample | undefined | null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One game process: started with nobody listening on its port. */
class Game {
  /** performance.now() when "ready" arrived: just after start()'s attempt failed. */
  readyAt = 0;
  private stdout = '';
  private stderr = '';
  private exitCode: number | null | undefined;
  private readonly child: ChildProcess;
  private readonly exited: Promise<number | null>;

  constructor(
    readonly variant: Variant,
    port: number,
  ) {
    const extra = `${path.join(BUNDLE_DIR, '?.lua')};;`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      LUA_PATH: extra,
      LUA_PATH_5_4: extra,
      LUA_PATH_5_3: extra,
      LUA_PATH_5_2: extra,
      ...(variant.native && NATIVE_DIR ? nativeCpathEnv(NATIVE_DIR, process.env) : {}),
    };
    if (variant.host) {
      const args = engineArgs({
        root: HOST_ROOT,
        ballastMb: variant.heapMb ?? 0,
        bootArgs: [String(port)],
      });
      this.child = spawn(hostFile(variant.lua as HostName), args, {
        env,
        cwd: HOST_ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } else {
      const script = path.join(FIXTURES, `attach_${variant.program}.lua`);
      const extraArg =
        variant.program === 'engine' ? String(variant.heapMb ?? 0) : String(variant.interval ?? '');
      this.child = spawn(variant.lua, [script, String(port), extraArg], {
        env,
        cwd: FIXTURES,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    }
    this.child.stdout?.setEncoding('utf8').on('data', (t: string) => {
      this.stdout += t;
      // Taken as the output arrives (not when ready() polls): the phase of the game's retries.
      if (this.readyAt === 0 && /ready\t\w+\n/.test(this.stdout)) this.readyAt = performance.now();
    });
    this.child.stderr?.setEncoding('utf8').on('data', (t: string) => (this.stderr += t));
    this.exited = new Promise((resolve) =>
      this.child.once('close', (code) => {
        this.exitCode = code;
        resolve(code);
      }),
    );
  }

  /** Resolves once the game ran start() (and found nobody listening). */
  async ready(): Promise<void> {
    const deadline = performance.now() + BOUND_MS;
    while (this.readyAt === 0) {
      if (this.exitCode !== undefined || performance.now() > deadline) {
        throw new Error(`the game did not start: ${this.describe()}`);
      }
      await sleep(5);
    }
    if (!/ready\tfalse/.test(this.stdout)) {
      throw new Error(`something listened on the game's port already: ${this.describe()}`);
    }
  }

  async exit(): Promise<number | null> {
    const timeout = sleep(BOUND_MS).then(() => {
      throw new Error(`the game did not exit: ${this.describe()}`);
    });
    return Promise.race([this.exited, timeout]);
  }

  kill(): void {
    if (this.exitCode === undefined) this.child.kill('SIGKILL');
  }

  describe(): string {
    const { program, native, heapMb } = this.variant;
    const heap = heapMb === undefined ? '' : ` ${heapMb} MB`;
    return `${nameOf(this.variant)} ${program}${heap} ${native ? 'native' : 'pure'}; stdout: ${this.stdout.slice(-300)}; stderr: ${this.stderr.slice(-300)}`;
  }
}

interface Attached {
  readonly sample: Sample;
  readonly listener: LuaListener;
  readonly connection: LuaConnection;
}

/**
 * Listens on `port` and times the game's connection and its handshake reply; `due` is when the
 * game's next attempt was due (performance.now() time).
 */
async function listenAndHandshake(game: Game, port: number, due: number): Promise<Attached> {
  const started = performance.now();
  const listener = await LuaListener.listen({ port, host: '127.0.0.1' });
  try {
    const connection = await listener
      .waitForConnection({ timeoutMs: BOUND_MS })
      .catch((error: unknown) => {
        throw new NotReached((error as Error).message);
      });
    const acceptedAt = performance.now();
    const accepted = acceptedAt - started;
    await connection.request(
      'initSuccess',
      initSuccessInfo({ cwd: FIXTURES, isNeedB64EncodeStr: false, waitConfigurationDone: true }),
    );
    const reply = performance.now() - started;
    await connection.request('configurationDone', {});
    return { sample: { accepted, reply, pastDue: acceptedAt - due }, listener, connection };
  } catch (error) {
    await listener.close();
    if (error instanceof NotReached) throw error;
    throw new Error(`${(error as Error).message}; ${game.describe()}`);
  }
}

/** Evaluates `expression` on the game's globals while it runs. */
async function evaluate(
  game: Game,
  connection: LuaConnection,
  expression: string,
): Promise<string> {
  const [result] = await connection
    .request('runREPLExpression', { Expression: expression, stackId: '2' })
    .catch((error: unknown) => {
      throw new Error(`${(error as Error).message} (${expression}); ${game.describe()}`);
    });
  return result.value;
}

/**
 * When to listen, in ms after the game's last attempt: a random moment in stratum `stratum` of
 * RUNS equal parts of the interval, so that every row's samples cover the whole cycle evenly
 * (fewer games give a steadier median than purely random moments). The last 5 % of the interval
 * is left out: the game's last attempt is seen here a little late, and a listen that came after
 * the game's next attempt would wait a whole interval more and spoil "past due".
 */
function phaseDelay(variant: Variant, stratum: number): number {
  return ((stratum + Math.random()) / runsOf(variant)) * intervalOf(variant) * 1000 * 0.95;
}

/** Sleeps until `ms` after the performance.now() time `from`. */
function sleepUntil(from: number, ms: number): Promise<unknown> {
  return sleep(Math.max(0, from + ms - performance.now()));
}

/** One game: the first attach, a detach, the re-attach, and the game ended through the REPL. */
async function runGame(variant: Variant, stratum: number): Promise<GameResult> {
  const port = await quietPort();
  const game = new Game(variant, port);
  const interval = intervalOf(variant) * 1000;
  // Every link opened, closed at the end whatever happened (an open one keeps the bench alive).
  const links: Attached[] = [];
  const attach = async (due: number) => {
    const attached = await reached(listenAndHandshake(game, port, due));
    if (attached) links.push(attached);
    return attached;
  };
  try {
    await game.ready();
    await sleepUntil(game.readyAt, phaseDelay(variant, stratum));
    const first = await attach(game.readyAt + interval);
    // (No re-attach without an attach: that figure is not taken.)
    if (!first) return { attach: undefined, reattach: null };
    // A pure engine game reads the IDE's requests only at its next poll (a count hook of
    // pollInstructions, a GC cycle): it may not answer within the bound, so its attach is the
    // only figure taken, and the game is killed.
    if (variant.program === 'engine' && !variant.native) {
      await first.connection.close();
      await first.listener.close();
      return { attach: first.sample, reattach: null };
    }
    // A native number from a game that did not load the accelerator would be a pure-Lua number.
    const info = await evaluate(game, first.connection, 'LuaPanda.getInfo()');
    const inUse = /native accelerator: luapanda_native\d+ in use/.test(info);
    if (inUse !== variant.native) {
      throw new Error(`accelerator in use: ${inUse} (getInfo: ${info}); ${game.describe()}`);
    }
    // The adapter's detach: stopRun, then a graceful close; then the IDE is gone for a while.
    // The game's disconnect right after its stopRun reply counts as its last attempt.
    await first.connection.request('stopRun', {}, { timeoutMs: 2_000 }).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}; ${game.describe()}`);
    });
    const detachedAt = performance.now();
    await first.connection.close();
    await first.listener.close();
    await sleepUntil(detachedAt, phaseDelay(variant, runsOf(variant) - 1 - stratum));
    const second = await attach(detachedAt + interval);
    if (!second) return { attach: first.sample, reattach: undefined };
    await evaluate(game, second.connection, 'running = false');
    const code = await game.exit();
    await second.connection.close();
    await second.listener.close();
    if (code !== 0) throw new Error(`the game exited with ${code}; ${game.describe()}`);
    return { attach: first.sample, reattach: second.sample };
  } finally {
    game.kill();
    for (const link of links) {
      await link.connection.close().catch(() => undefined);
      await link.listener.close().catch(() => undefined);
    }
  }
}

/** The attach, or undefined when the game did not connect within the bound. */
async function reached(attaching: Promise<Attached>): Promise<Attached | undefined> {
  try {
    return await attaching;
  } catch (error) {
    if (error instanceof NotReached) return undefined;
    throw error;
  }
}

/** Nearest-rank percentile. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)];
}

function available(command: string): boolean {
  return spawnSync(command, ['-e', 'require("socket")'], { timeout: 10_000 }).status === 0;
}

function variantsFor(interpreters: string[], hosts: string[]): Variant[] {
  const variants: Variant[] = [];
  for (const lua of interpreters) {
    for (const program of ['busy', 'idle'] as const) {
      for (const native of [false, true]) variants.push({ lua, program, native });
    }
    for (const heapMb of [0, 30]) {
      for (const native of [false, true]) variants.push({ lua, program: 'engine', native, heapMb });
    }
  }
  // The same programs retrying at other intervals: the latency follows the interval.
  const fast = interpreters.includes('lua5.4') ? 'lua5.4' : interpreters[0];
  for (const interval of fast === undefined ? [] : [1, 0.1]) {
    for (const program of ['busy', 'idle'] as const) {
      variants.push({ lua: fast, program, native: false, interval });
    }
  }
  for (const lua of hosts) {
    for (const heapMb of [0, 30]) {
      for (const native of [false, true]) {
        variants.push({ lua, program: 'engine', native, heapMb, host: true });
      }
    }
  }
  return variants;
}

/** A game that did not connect within the bound (a pure engine row may not). */
class NotReached extends Error {}

export async function runAttachBench(): Promise<void> {
  const only = process.env.LUAPANDA_BENCH_LUA?.split(',');
  const interpreters = (only ?? ['lua5.4', 'luajit']).filter(
    (lua) => lua !== 'none' && available(lua),
  );
  if (interpreters.length === 0 && !only?.includes('none')) {
    throw new Error('No Lua interpreter with luasocket found.');
  }
  if (!NATIVE_DIR) {
    throw new Error('No native accelerator build in dist/native: run `npm run compile` first.');
  }
  const hosts = HOSTS.filter((name) => {
    if (!(HOST_NAMES as readonly string[]).includes(name)) {
      throw new Error(
        `LUAPANDA_BENCH_HOSTS: no engine host for ${name} (${HOST_NAMES.join(', ')})`,
      );
    }
    const why = hostMissing(name as HostName);
    if (why) console.log(`(engine-${name} left out: ${why})`);
    return why === undefined;
  });
  const variants = variantsFor(interpreters, hosts);
  // Interleaved: run r of every variant before run r + 1 of any.
  const queue: { variant: Variant; run: number }[] = [];
  const most = Math.max(...variants.map(runsOf));
  for (let run = 0; run < most; run++) {
    queue.push(...variants.filter((v) => run < runsOf(v)).map((variant) => ({ variant, run })));
  }
  const results = new Map<Variant, GameResult[]>(variants.map((v) => [v, []]));
  const worker = async () => {
    for (let job = queue.shift(); job; job = queue.shift()) {
      try {
        results.get(job.variant)?.push(await runGame(job.variant, job.run));
      } catch (error) {
        queue.length = 0; // the other worker ends its game and stops too
        throw error;
      }
    }
  };
  const outcomes = await Promise.allSettled(Array.from({ length: PARALLEL }, worker));
  for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;

  const bound = `${BOUND_MS / 1000} s`;
  /** p50 / p95 of the games that connected, and how many did not. */
  const cell = (all: (number | undefined | null)[]) => {
    // (null: a figure not taken, as a pure engine game's re-attach.)
    const values = all.filter((v) => v !== null);
    if (values.length === 0) return 'not measured';
    const got = values.filter((v): v is number => typeof v === 'number');
    const missed = values.length - got.length;
    if (got.length === 0) return `none in ${bound} (${missed} games)`;
    const figures = `${percentile(got, 0.5).toFixed(0)} / ${percentile(got, 0.95).toFixed(0)}`;
    return missed > 0 ? `${figures} (${missed} of ${values.length} none in ${bound})` : figures;
  };
  const latencyHeader: string[] = [];
  for (const kind of ['attach', 're-attach']) {
    latencyHeader.push(`${kind}: accepted`, `${kind}: reply`, `${kind}: past due`);
  }
  const columns = (r: GameResult[]) =>
    [r.map((x) => x.attach), r.map((x) => x.reattach)].flatMap((samples) => [
      cell(samples.map((x) => (x === null ? null : x?.accepted))),
      cell(samples.map((x) => (x === null ? null : x?.reply))),
      cell(samples.map((x) => (x === null ? null : x?.pastDue))),
    ]);
  const hookOf = (v: Variant) => (v.native ? 'native' : 'pure');
  const resultsOf = (picked: Variant[]) => picked.flatMap((v) => results.get(v) ?? []);

  const standalone = variants.filter((v) => !v.host);
  if (standalone.length > 0) {
    console.log(
      '\nAttach latency of a game started before the IDE listens, in ms, p50 / p95 of ' +
        `${RUNS} games per row (${Math.min(RUNS, PURE_ENGINE_RUNS)} for pure engine rows; ${PARALLEL} at a time). accepted / reply: from the IDE's listen() ` +
        "to the game's connection accepted / to its initSuccess reply, the listen coming at a " +
        "moment spread evenly over the game's retry cycle; past due: from when the game's next " +
        'attempt was due (its last attempt + attachInterval) to accepted, i.e. the wait for a safe ' +
        'point plus the connect. re-attach: the same after a detach (stopRun). busy = allocates, ' +
        'no tick(); idle = allocates nothing, LuaPanda.tick() every iteration; engine = a little ' +
        'Lua and a 10 ms sleep per frame, little allocation, no tick().',
    );
    const programOf = (v: Variant) =>
      v.program === 'engine' ? `engine, ${v.heapMb ?? 0} MB heap` : v.program;
    const rows = standalone.map((v) => [
      v.lua,
      programOf(v),
      hookOf(v),
      v.interval === undefined ? `default (${DEFAULT_INTERVAL_S} s)` : `${v.interval} s`,
      ...columns(results.get(v) ?? []),
    ]);
    // The figures the README quotes: every native game at the default interval, and every game
    // that gives the runtime a safe point by itself (allocating, or calling tick()).
    const summaries: [string, (v: Variant) => boolean][] = [
      ['native, every program', (v) => v.native && v.interval === undefined],
      [
        'pure, busy or tick()',
        (v) => !v.native && v.program !== 'engine' && v.interval === undefined,
      ],
    ];
    for (const [label, chosen] of summaries) {
      const picked = standalone.filter(chosen);
      rows.push([
        `all ${picked.length} rows: ${label}`,
        '',
        '',
        `default (${DEFAULT_INTERVAL_S} s)`,
        ...columns(resultsOf(picked)),
      ]);
    }
    printMarkdownTable(
      ['interpreter', 'program', 'hook', 'attachInterval', ...latencyHeader],
      rows,
    );
  }

  const hosted = variants.filter((v) => v.host);
  if (hosted.length === 0) return;
  console.log(
    '\nThe same in real engine hosts (test/hosts/engine.c: the interpreter linked into a C ' +
      'program that calls Update(dt) from C every 10 ms under lua_pcall and resumes a job ' +
      'coroutine with lua_resume; boot script bench/engine/boot.lua: a little Lua per frame, ' +
      "no tick(), start() while nobody listens), with the host's own heap and with 30 MB of " +
      `tables allocated at boot (--ballast-mb), in ms, p50 / p95 of ${HOST_RUNS} games per row ` +
      `(${pureHostRuns()} for pure rows, whose games may never connect: ` +
      `"none in ${bound}" counts them), at the default attachInterval (${DEFAULT_INTERVAL_S} s). ` +
      "upstream: Tencent's LuaPanda attaching to a running game in an engine of this shape " +
      '(small heap), as reported in issue 30, not measured here.',
  );
  const hostRows = hosted.map((v) => [
    nameOf(v),
    `${v.heapMb ?? 0} MB`,
    hookOf(v),
    ...columns(results.get(v) ?? []),
    (v.heapMb ?? 0) === 0 ? (UPSTREAM_ATTACH[v.lua] ?? '') : '',
  ]);
  for (const native of [true, false]) {
    const picked = hosted.filter((v) => v.native === native);
    const label = `all ${picked.length} rows: ${native ? 'native' : 'pure'}`;
    hostRows.push([label, '', '', ...columns(resultsOf(picked)), '']);
  }
  printMarkdownTable(
    ['engine host', 'ballast', 'hook', ...latencyHeader, 'upstream: attach'],
    hostRows,
  );
}

if (require.main === module) {
  runAttachBench().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
