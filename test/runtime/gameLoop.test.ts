/**
 * The game-loop bench's program (bench_gameloop.lua) must do exactly the same work under the
 * runtime as plain: the same checksum in every situation the bench measures (the same
 * breakpoints, from bench/gameLoopSituations.ts), under lua5.4 with the pure-Lua hook and with
 * the native accelerator. The logpoint's lines reach the IDE, one per frame, and never the
 * program's stdout. A short run (few frames); nothing about time is asserted (bench/gameLoop.ts
 * measures it).
 */
import { strict as assert } from 'node:assert';
import {
  GAME_SITUATIONS,
  GameRun,
  LOGPOINT_PREFIX,
  gameRunOf,
} from '../../bench/gameLoopSituations';
import { runtimeVariants } from '../harness/interpreters';
import { spawnLua } from '../harness/luaProcess';
import { FIXTURES, closeAll, finish, fixture, startSession } from './helpers';

const FILE = 'bench_gameloop.lua';
/** Enough for bullets to hit, enemies to die and respawn, and both coroutines to loop. */
const FRAMES = 150;

for (const lua of runtimeVariants().filter((v) => v.command === 'lua5.4')) {
  describe(`runtime game loop, same work as plain Lua (${lua.label})`, function () {
    this.timeout(30_000);
    afterEach(closeAll);

    let plain: GameRun;
    before(async () => {
      const proc = spawnLua({ ...lua, native: false }, fixture(FILE), {
        args: ['none', 'plain', String(FRAMES), '0'],
        cwd: FIXTURES,
      });
      const exit = await proc.waitForExit(15_000);
      assert.equal(exit.code, 0, proc.describe());
      plain = gameRunOf({ code: exit.code, stdout: proc.stdout, stderr: proc.stderr });
      assert.equal(plain.frames, FRAMES);
    });

    for (const spec of GAME_SITUATIONS) {
      it(`prints the plain checksum: ${spec.label}`, async () => {
        const s = await startSession(lua, FILE, {
          args: ['attached', String(FRAMES), lua.native ? '1' : '0'],
          breakpoints: { [FILE]: spec.breakpoints() },
        });
        const stdout = await finish(s);
        assert.match(stdout, new RegExp(`^NATIVE ${String(lua.native)}$`, 'm'));
        const run = gameRunOf({ code: 0, stdout, stderr: s.lua.stderr });
        assert.deepEqual(run, plain);
        const logpoints = s.ide.notifications.filter(
          (n) => n.kind === 'log' && n.cmd === 'debug_console' && n.text.includes(LOGPOINT_PREFIX),
        );
        const expected = spec.situation === 'logpoint' ? FRAMES : 0;
        assert.equal(logpoints.length, expected, 'logpoint lines that reached the IDE');
        assert.ok(!stdout.includes(LOGPOINT_PREFIX), 'no logpoint line in the program stdout');
        assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 0);
      });
    }
  });
}
