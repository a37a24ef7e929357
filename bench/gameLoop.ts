/**
 * Frame time of ordinary game code under the Lua runtime (dist/lua/LuaPanda.lua) against plain
 * Lua, side by side in one run. The program (test/fixtures/runtime/bench_gameloop.lua) is a frame
 * loop: `update(dt)` moves 60 enemies (classes through metatables, vector maths with a new table
 * per operation), fires and retires bullets (table churn, respawns keep the population steady),
 * drives two coroutines that yield every frame (a patrol script and a gun) and formats a HUD line
 * per frame. It is seeded and prints a checksum, which must equal a plain run's of the same
 * length in every cell (a run that skipped work fails the bench).
 * Situations, each with the pure-Lua hook and with the native accelerator (see
 * bench/gameLoopSituations.ts): attached with no breakpoints; a breakpoint in a function of the
 * same file that never runs; a breakpoint in update() on a line never reached; a never-true
 * condition (`self.hp < -1e9`) on a line run for every entity every frame; a logpoint that fires
 * every frame — its lines must all reach the IDE side over the socket (counted) and none the
 * program's stdout. Under lua5.4, lua5.1 and luajit (those present), and in a real engine: LÖVE 11
 * (column "love", when love and xvfb-run are there) runs the same frame function as its
 * love.update inside its own loop (test/fixtures/love/bench), timed around love.update alone.
 * CPU time of the frame loop only (os.clock inside Lua); each cell is the median time per frame of
 * several runs divided by the median of plain runs interleaved with them. Slow cells run fewer
 * frames (every frame costs about the same). A native cell that did not get the accelerator
 * fails the run. Also printed: plain milliseconds per frame, how far the plain runs lie from
 * their median (what a difference between two cells must exceed), and floor rows measured in the
 * same runs (bench/gameLoopFloors.ts): what any debugger hooking like ours must pay; and the rows
 * "started, no IDE yet": start() called on a port nobody listens on, what a game pays before anyone
 * attaches (the retries, the native wake timer, LuaJIT's profiler checks). A second table
 * repeats idle and a breakpoint elsewhere with a game-sized heap alive (WORLD_RECORDS), against
 * which the runtime's own memory weighs what it weighs in a game.
 * Run alone: `node out/bench/gameLoop.js` (after `npm run compile`); LUAPANDA_BENCH_RUNS=3,
 * LUAPANDA_BENCH_LUA=lua5.4,luajit and LUAPANDA_BENCH_SITUATIONS=idle,bpElsewhere make it shorter
 * (add `floors` to that list to keep the floor rows, `world` to keep the second table).
 */
import {
  GAMELOOP_LUA,
  GAME_SITUATIONS,
  GameSituation,
  GameSituationSpec,
  LOGPOINT_PREFIX,
  gameRunOf,
  runSituation,
} from './gameLoopSituations';
import { FLOORS, FloorSpec, floorHookEnvs } from './gameLoopFloors';
import { LOVE, RUNS, benchInterpreters, median, runLua, timeOf } from './luaRuns';
import { printMarkdownTable } from './markdownTable';
import { quietPort } from '../test/harness/ports';

/**
 * Frames of a plain run: roughly 0.2–0.4 s of CPU on this kind of machine. LÖVE's own loop takes
 * about a millisecond per frame beside love.update (its 1 ms sleep, clearing and presenting), so
 * its runs are counted in frames of wall time rather than CPU.
 */
const FRAMES: Record<string, number> = {
  'lua5.4': 3000,
  'lua5.1': 3000,
  luajit: 30000,
  [LOVE]: 2000,
};

/**
 * Cells that are much slower run this many times fewer frames (pure, native), so that a run stays
 * near a second. LuaJIT's hooks send code to its interpreter, hence its larger divisors.
 */
const SLOW: Partial<Record<GameSituation, Record<string, [number, number]>>> = {
  idle: { luajit: [4, 4] },
  bpElsewhere: { 'lua5.4': [4, 1], 'lua5.1': [4, 1], luajit: [40, 10], [LOVE]: [4, 1] },
  bpUnreached: { 'lua5.4': [8, 2], 'lua5.1': [8, 2], luajit: [80, 20], [LOVE]: [8, 4] },
  hotCondition: { 'lua5.4': [10, 4], 'lua5.1': [10, 4], luajit: [100, 40], [LOVE]: [10, 8] },
  logpoint: { 'lua5.4': [8, 2], 'lua5.1': [8, 2], luajit: [80, 20], [LOVE]: [8, 4] },
};

interface Cell {
  readonly spec: GameSituationSpec;
  readonly native: boolean;
}
/** LUAPANDA_BENCH_SITUATIONS=idle,hotCondition runs only those situations. */
const onlySituations = process.env.LUAPANDA_BENCH_SITUATIONS?.split(',');
const unknownSituations = (onlySituations ?? []).filter(
  (name) =>
    name !== 'floors' &&
    name !== 'world' &&
    !GAME_SITUATIONS.some((spec) => spec.situation === name),
);
if (unknownSituations.length > 0) {
  throw new Error(
    `LUAPANDA_BENCH_SITUATIONS: no situation ${unknownSituations.join(', ')} ` +
      `(known: ${GAME_SITUATIONS.map((spec) => spec.situation).join(', ')}, floors, world)`,
  );
}
const CELLS: Cell[] = GAME_SITUATIONS.filter(
  (spec) => !onlySituations || onlySituations.includes(spec.situation),
).flatMap((spec) => [
  { spec, native: false },
  { spec, native: true },
]);
const WITH_FLOORS = !onlySituations || onlySituations.includes('floors');
/** The second table (a game-sized heap): by default, or with `world` in the list. */
const WITH_WORLD = !onlySituations || onlySituations.includes('world');
/** What the second table measures: idle both ways and a breakpoint elsewhere, natively. */
const situationSpec = (situation: GameSituation): GameSituationSpec => {
  const spec = GAME_SITUATIONS.find((s) => s.situation === situation);
  if (!spec) throw new Error(`no game situation ${situation}`);
  return spec;
};
const WORLD_CELLS: Cell[] = [
  { spec: situationSpec('idle'), native: false },
  { spec: situationSpec('idle'), native: true },
  { spec: situationSpec('bpElsewhere'), native: true },
];
const LOADED_FLOOR = FLOORS.filter((floor) => floor.kind === 'loaded');
/** The "started, no IDE yet" rows: pure, then native. */
const UNATTACHED = [false, true];
const unattachedLabel = (native: boolean) => `started, no IDE yet, ${native ? 'native' : 'pure'}`;
const labelOf = (cell: Cell) => `${cell.spec.label}, ${cell.native ? 'native' : 'pure'}`;

/**
 * Runs per cell: LÖVE's differ more from one process to the next (±15 % on plain frames here:
 * the engine sleeps a millisecond per frame, after which love.update starts on a cold core), so
 * its medians take twice as many.
 */
const runsOf = (lua: string) => (lua === LOVE ? 2 * RUNS : RUNS);

/**
 * How far the plain runs of one column lie from their median (fastest–slowest, as ratios): what
 * a difference between two cells of that column must exceed to mean something.
 */
function spreadOf(times: readonly number[]): string {
  const mid = median([...times]);
  return `${(Math.min(...times) / mid).toFixed(2)}–${(Math.max(...times) / mid).toFixed(2)}`;
}

/** Frames of a run that costs about `divisor` times a plain frame. */
const framesWith = (lua: string, divisor: number) => Math.max(1, Math.floor(FRAMES[lua] / divisor));

function framesFor(lua: string, cell: Cell): number {
  const divisors = SLOW[cell.spec.situation]?.[lua];
  return framesWith(lua, divisors ? divisors[cell.native ? 1 : 0] : 1);
}

/**
 * Records of the world a "game-sized heap" run keeps alive (LUAPANDA_BENCH_WORLD of the fixture):
 * about 5 MB, the order of what a small game holds in level data and entities. The main table's
 * loop keeps only a few KB alive, against which the runtime's own memory (about 0.4–0.55 MB of
 * compiled functions) weighs more than it would in a game.
 */
const WORLD_RECORDS = 20_000;

/** The environment of a run with `world` records (none: the loop alone). */
const worldEnv = (world: number): NodeJS.ProcessEnv =>
  world > 0 ? { LUAPANDA_BENCH_WORLD: String(world) } : {};

/** A plain run's checksum per (interpreter, frames, world): what every cell of that length must print. */
const references = new Map<string, string>();

async function plainRun(lua: string, frames: number, world = 0): Promise<number> {
  const out = await runLua(
    lua,
    GAMELOOP_LUA,
    ['none', 'plain', String(frames), '0'],
    false,
    worldEnv(world),
  );
  const seconds = timeOf(out, lua, 'plain', false);
  const { checksum } = gameRunOf(out);
  const key = `${lua} ${frames} ${world}`;
  const known = references.get(key);
  if (known !== undefined && known !== checksum) {
    throw new Error(`${lua}: plain runs of ${frames} frames disagree: ${known} / ${checksum}`);
  }
  references.set(key, checksum);
  return seconds / frames;
}

/** Seconds per frame of one floor run (no debugger); throws if it did other work than plain. */
async function floorRun(
  lua: string,
  floor: FloorSpec,
  env: NodeJS.ProcessEnv,
  world = 0,
): Promise<number> {
  const frames = framesWith(lua, floor.divisors[lua] ?? 1);
  const key = `${lua} ${frames} ${world}`;
  if (!references.has(key)) await plainRun(lua, frames, world);
  const out = await runLua(
    lua,
    GAMELOOP_LUA,
    ['none', 'floor', String(frames), floor.kind],
    false,
    { ...env, ...worldEnv(world) },
  );
  const seconds = timeOf(out, lua, floor.label, false);
  const run = gameRunOf(out);
  if (run.frames !== frames || run.checksum !== references.get(key)) {
    throw new Error(
      `${lua}, ${floor.label}: checksum ${run.checksum}; plain: ${references.get(key)}`,
    );
  }
  return seconds / frames;
}

/**
 * Seconds per frame of a run that called start() on a port where nothing listens (the game keeps
 * trying, as one started before the IDE does); throws if it did other work than plain Lua did.
 */
async function unattachedRun(lua: string, native: boolean, world = 0): Promise<number> {
  const frames = FRAMES[lua];
  const key = `${lua} ${frames} ${world}`;
  if (!references.has(key)) await plainRun(lua, frames, world);
  const port = await quietPort();
  const args = [String(port), 'attached', String(frames), native ? '1' : '0'];
  const out = await runLua(lua, GAMELOOP_LUA, args, native, worldEnv(world));
  const seconds = timeOf(out, lua, unattachedLabel(native), native);
  const run = gameRunOf(out);
  if (run.frames !== frames || run.checksum !== references.get(key)) {
    throw new Error(
      `${lua}, ${unattachedLabel(native)}: checksum ${run.checksum}; plain: ${references.get(key)}`,
    );
  }
  return seconds / frames;
}

/** Seconds per frame of one attached run; throws if it did other work than plain Lua did. */
async function cellRun(lua: string, cell: Cell, world = 0): Promise<number> {
  const frames = framesFor(lua, cell);
  const key = `${lua} ${frames} ${world}`;
  if (!references.has(key)) await plainRun(lua, frames, world);
  const { out, logpointLines } = await runSituation(
    lua,
    cell.spec,
    frames,
    cell.native,
    worldEnv(world),
  );
  const seconds = timeOf(out, lua, labelOf(cell), cell.native);
  const run = gameRunOf(out);
  if (run.frames !== frames || run.checksum !== references.get(key)) {
    throw new Error(
      `${lua}, ${labelOf(cell)}: checksum ${run.checksum} after ${run.frames} frames; ` +
        `plain Lua printed ${references.get(key)} after ${frames}`,
    );
  }
  const expected = cell.spec.situation === 'logpoint' ? frames : 0;
  if (logpointLines !== expected || out.stdout.includes(LOGPOINT_PREFIX)) {
    throw new Error(
      `${lua}, ${labelOf(cell)}: ${logpointLines} logpoint lines reached the IDE (expected ` +
        `${expected}); in the program's stdout: ${out.stdout.includes(LOGPOINT_PREFIX)}`,
    );
  }
  return seconds / frames;
}

export async function runGameLoopBench(): Promise<void> {
  const interpreters = benchInterpreters(Object.keys(FRAMES));
  console.log(
    `\nGame loop under the runtime (CPU time of the frame loop inside Lua, median of ${RUNS} runs ` +
      `(${2 * RUNS} in LÖVE), ratio to plain Lua in the same run; pure = pure-Lua hook, native = ` +
      'native accelerator)',
  );
  const floors = WITH_FLOORS ? FLOORS : [];
  const floorEnvs = WITH_FLOORS
    ? floorHookEnvs(interpreters)
    : new Map<string, NodeJS.ProcessEnv>();
  const plainPerFrame: number[] = [];
  const plainSpreads: string[] = [];
  const ratios: string[][] = CELLS.map(() => []);
  const floorRatios: string[][] = floors.map(() => []);
  const unattachedRatios: string[][] = UNATTACHED.map(() => []);
  for (const lua of interpreters) {
    const plainTimes: number[] = [];
    const times: number[][] = CELLS.map(() => []);
    const floorTimes: number[][] = floors.map(() => []);
    const unattachedTimes: number[][] = UNATTACHED.map(() => []);
    // A floor that cannot run here: not this interpreter's, or its C hooks were not built.
    const envOf = (floor: FloorSpec) =>
      (floor.only && !floor.only.includes(lua)) || (floor.cHook && !floorEnvs.has(lua))
        ? undefined
        : (floorEnvs.get(lua) ?? {});
    for (let run = 0; run < runsOf(lua); run++) {
      plainTimes.push(await plainRun(lua, FRAMES[lua]));
      for (const [i, cell] of CELLS.entries()) times[i].push(await cellRun(lua, cell));
      if (WITH_FLOORS) {
        for (const [i, native] of UNATTACHED.entries()) {
          unattachedTimes[i].push(await unattachedRun(lua, native));
        }
      }
      for (const [i, floor] of floors.entries()) {
        const env = envOf(floor);
        if (env) floorTimes[i].push(await floorRun(lua, floor, env));
      }
    }
    const plain = median(plainTimes);
    plainPerFrame.push(plain);
    plainSpreads.push(spreadOf(plainTimes));
    const ratio = (t: number[]) => (t.length ? `×${(median(t) / plain).toFixed(2)}` : '—');
    for (const [i, t] of times.entries()) ratios[i].push(ratio(t));
    for (const [i, t] of floorTimes.entries()) floorRatios[i].push(ratio(t));
    for (const [i, t] of unattachedTimes.entries()) unattachedRatios[i].push(ratio(t));
  }
  const rows = [
    ['plain Lua, ms per frame', ...plainPerFrame.map((s) => (s * 1000).toFixed(3))],
    ['plain runs against their median (fastest–slowest)', ...plainSpreads],
    ...CELLS.map((cell, i) => [labelOf(cell), ...ratios[i]]),
    ...(WITH_FLOORS
      ? UNATTACHED.map((native, i) => [unattachedLabel(native), ...unattachedRatios[i]])
      : []),
    ...floors.map((floor, i) => [floor.label, ...floorRatios[i]]),
  ];
  printMarkdownTable(['situation', ...interpreters], rows);
  if (WITH_WORLD) await runWorldTable(interpreters);
}

/** The same loop with a game-sized heap alive beside it (WORLD_RECORDS), in a table of its own. */
async function runWorldTable(interpreters: string[]): Promise<void> {
  console.log(
    `\nThe same with a world of ${WORLD_RECORDS} records alive (about 5 MB, as a game holds its ` +
      `level data), median of ${RUNS} runs (${2 * RUNS} in LÖVE), ratio to plain Lua with the same ` +
      'world',
  );
  const plainPerFrame: number[] = [];
  const plainSpreads: string[] = [];
  const ratios: string[][] = WORLD_CELLS.map(() => []);
  const floorRatios: string[][] = LOADED_FLOOR.map(() => []);
  const unattachedRatios: string[][] = UNATTACHED.map(() => []);
  for (const lua of interpreters) {
    const plainTimes: number[] = [];
    const times: number[][] = WORLD_CELLS.map(() => []);
    const floorTimes: number[][] = LOADED_FLOOR.map(() => []);
    const unattachedTimes: number[][] = UNATTACHED.map(() => []);
    for (let run = 0; run < runsOf(lua); run++) {
      plainTimes.push(await plainRun(lua, FRAMES[lua], WORLD_RECORDS));
      for (const [i, cell] of WORLD_CELLS.entries()) {
        times[i].push(await cellRun(lua, cell, WORLD_RECORDS));
      }
      for (const [i, floor] of LOADED_FLOOR.entries()) {
        floorTimes[i].push(await floorRun(lua, floor, {}, WORLD_RECORDS));
      }
      for (const [i, native] of UNATTACHED.entries()) {
        unattachedTimes[i].push(await unattachedRun(lua, native, WORLD_RECORDS));
      }
    }
    const plain = median(plainTimes);
    plainPerFrame.push(plain);
    plainSpreads.push(spreadOf(plainTimes));
    const ratio = (t: number[]) => `×${(median(t) / plain).toFixed(2)}`;
    for (const [i, t] of times.entries()) ratios[i].push(ratio(t));
    for (const [i, t] of floorTimes.entries()) floorRatios[i].push(ratio(t));
    for (const [i, t] of unattachedTimes.entries()) unattachedRatios[i].push(ratio(t));
  }
  printMarkdownTable(
    ['situation, 5 MB world', ...interpreters],
    [
      ['plain Lua, ms per frame', ...plainPerFrame.map((s) => (s * 1000).toFixed(3))],
      ['plain runs against their median (fastest–slowest)', ...plainSpreads],
      ...WORLD_CELLS.map((cell, i) => [labelOf(cell), ...ratios[i]]),
      ...UNATTACHED.map((native, i) => [unattachedLabel(native), ...unattachedRatios[i]]),
      ...LOADED_FLOOR.map((floor, i) => [floor.label, ...floorRatios[i]]),
    ],
  );
}

if (require.main === module) {
  runGameLoopBench().catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
