/**
 * The game-loop bench's engine column (bench/gameLoop.ts, column "love"): LÖVE 11 runs the frame
 * function of bench_gameloop.lua as its love.update (test/fixtures/love/bench). Through the
 * bench's own runner (bench/luaRuns.ts), it must do exactly the work of plain LuaJIT: the same
 * checksum after the same frames, plain, under a floor and attached in the situations the bench
 * measures, pure and native. The logpoint's lines reach the IDE, one per frame, and never the
 * game's stdout. A short run; nothing about time is asserted.
 */
import { strict as assert } from 'node:assert';
import {
  GAMELOOP_LUA,
  GAME_SITUATIONS,
  GameRun,
  LOGPOINT_PREFIX,
  gameRunOf,
  runSituation,
} from '../../bench/gameLoopSituations';
import { LOVE, LuaRun, runLua } from '../../bench/luaRuns';
import { luaInterpreters } from '../harness/interpreters';
import { loveMissing, loveVariants, mustRunLove } from './loveSetup';

/** Enough for bullets to hit, enemies to die and respawn, and both coroutines to loop. */
const FRAMES = 150;

/** Checks a run's exit and reads its frames and checksum (with its stderr when it failed). */
function runOf(out: LuaRun): GameRun {
  assert.equal(out.code, 0, `exit ${out.code}: ${out.stderr.slice(-600)}`);
  return gameRunOf(out);
}

describe('game-loop bench in LÖVE 11: same work as plain LuaJIT', function () {
  this.timeout(60_000);
  let plain: GameRun;

  before(async function () {
    const missing = loveMissing();
    if (missing !== undefined) {
      if (mustRunLove()) throw new Error(`The LÖVE tests cannot run: ${missing}`);
      console.warn(`      Skipping the LÖVE bench tests: ${missing}`);
      this.skip();
    }
    // (LÖVE runs LuaJIT: the stand-alone one gives the reference.)
    const luajit = luaInterpreters().find((i) => i.isLuaJIT)?.command;
    assert.ok(luajit, 'luajit (with luasocket) is needed for the reference run');
    plain = runOf(
      await runLua(luajit, GAMELOOP_LUA, ['none', 'plain', String(FRAMES), '0'], false),
    );
    assert.equal(plain.frames, FRAMES);
  });

  it('runs the frame function as love.update: plain', async () => {
    const out = await runLua(LOVE, GAMELOOP_LUA, ['none', 'plain', String(FRAMES), '0'], false);
    assert.deepEqual(runOf(out), plain);
    assert.match(out.stdout, /^TIME \d+\.\d+$/m);
  });

  it('and under a floor (the runtime loaded, never started)', async () => {
    const out = await runLua(
      LOVE,
      GAMELOOP_LUA,
      ['none', 'floor', String(FRAMES), 'loaded'],
      false,
    );
    assert.deepEqual(runOf(out), plain);
  });

  for (const variant of loveVariants()) {
    for (const spec of GAME_SITUATIONS) {
      it(`and attached, ${variant.label}: ${spec.label}`, async () => {
        if (variant.problem !== undefined) throw new Error(variant.problem);
        const { out, logpointLines } = await runSituation(LOVE, spec, FRAMES, variant.native);
        assert.deepEqual(runOf(out), plain);
        assert.match(out.stdout, new RegExp(`^NATIVE ${String(variant.native)}$`, 'm'));
        const expected = spec.situation === 'logpoint' ? FRAMES : 0;
        assert.equal(logpointLines, expected, 'logpoint lines that reached the IDE');
        assert.ok(!out.stdout.includes(LOGPOINT_PREFIX), 'no logpoint line in the game stdout');
      });
    }
  }
});
