/**
 * The situations of the game-loop bench (bench/gameLoop.ts), shared with its correctness tests
 * (test/runtime/gameLoop.test.ts, test/love/loveBench.test.ts) so that they run the fixture under
 * exactly the same breakpoints; one attached run of a situation; and the reading of what the
 * fixture prints.
 */
import * as path from 'node:path';
import { LuaNotification, WireBreakpoint } from '../src/protocol';
import { FIXTURES, LuaRun, markerLine, runAttached } from './luaRuns';

export const GAMELOOP_LUA = path.join(FIXTURES, 'bench_gameloop.lua');

export type GameSituation = 'idle' | 'bpElsewhere' | 'bpUnreached' | 'hotCondition' | 'logpoint';

export interface GameSituationSpec {
  readonly situation: GameSituation;
  /** How the bench's table names it. */
  readonly label: string;
  /** Breakpoints set in GAMELOOP_LUA before the program runs. */
  readonly breakpoints: () => WireBreakpoint[];
}

const at = (marker: string) => markerLine(GAMELOOP_LUA, marker);

/** What the logpoint says each frame: it interpolates a local (the frame number). */
export const LOGPOINT_PREFIX = 'gameloop frame ';

export const GAME_SITUATIONS: readonly GameSituationSpec[] = [
  { situation: 'idle', label: 'attached, no bp', breakpoints: () => [] },
  {
    situation: 'bpElsewhere',
    label: 'bp in fn never run',
    breakpoints: () => [{ type: 2, line: at('never') }],
  },
  {
    situation: 'bpUnreached',
    label: 'bp in update(), line never reached',
    breakpoints: () => [{ type: 2, line: at('updateNever') }],
  },
  {
    // Executed for every entity every frame; reads a local (self) and is never true.
    situation: 'hotCondition',
    label: 'never-true condition on hot line',
    breakpoints: () => [{ type: 0, line: at('hot'), condition: 'self.hp < -1e9' }],
  },
  {
    situation: 'logpoint',
    label: 'logpoint every frame',
    breakpoints: () => [
      { type: 1, line: at('everyFrame'), logMessage: `${LOGPOINT_PREFIX}{frame}` },
    ],
  },
];

export interface GameRun {
  readonly frames: number;
  /** Everything the fixture's "CHECKSUM" line says: equal in every mode of one interpreter. */
  readonly checksum: string;
}

/** Reads a run's FRAMES and CHECKSUM lines; throws (with its stderr) when they are missing. */
export function gameRunOf(out: LuaRun): GameRun {
  const frames = /^FRAMES (\d+)$/m.exec(out.stdout);
  const checksum = /^CHECKSUM (.*)$/m.exec(out.stdout);
  if (!frames || !checksum) {
    throw new Error(`game loop run failed (code ${out.code}): ${out.stderr.slice(-300)}`);
  }
  return { frames: Number(frames[1]), checksum: checksum[1].trim() };
}

/** An attached run of the game loop: what it printed, and the logpoint lines the IDE received. */
export interface SituationRun {
  readonly out: LuaRun;
  readonly logpointLines: number;
}

/**
 * Runs the game loop under `lua` for `frames` frames, attached to an IDE that sets `spec`'s
 * breakpoints before the program runs (pure-Lua hook, or the native accelerator when `native`).
 */
export async function runSituation(
  lua: string,
  spec: GameSituationSpec,
  frames: number,
  native: boolean,
  env: NodeJS.ProcessEnv = {},
): Promise<SituationRun> {
  let logpointLines = 0;
  const onNotification = (n: LuaNotification) => {
    if (n.kind === 'log' && n.cmd === 'debug_console' && n.text.includes(LOGPOINT_PREFIX)) {
      logpointLines++;
    }
  };
  const out = await runAttached(
    lua,
    GAMELOOP_LUA,
    ['attached', String(frames), native ? '1' : '0'],
    native,
    {
      onNotification,
      env,
      configure: async (connection) => {
        const bks = spec.breakpoints();
        if (bks.length > 0) await connection.request('setBreakPoint', { path: GAMELOOP_LUA, bks });
      },
    },
  );
  return { out, logpointLines };
}
