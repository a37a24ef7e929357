/**
 * The situations of the game-loop bench (bench/gameLoop.ts), shared with its correctness test
 * (test/runtime/gameLoop.test.ts) so that both run the fixture under exactly the same
 * breakpoints, and the reading of what the fixture prints.
 */
import * as path from 'node:path';
import { WireBreakpoint } from '../src/protocol';
import { FIXTURES, LuaRun, markerLine } from './luaRuns';

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
