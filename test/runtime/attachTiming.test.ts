/**
 * A game that called `start()` while no IDE listened must be reached when one starts listening
 * later, at a safe point of its own: the garbage collector's heartbeat (a program that
 * allocates) or `LuaPanda.tick()` (a frame loop that allocates nothing). After a detach or an
 * IDE crash the same mechanisms must attach it again. Every interpreter, pure-Lua hook and
 * native accelerator. Waits are bounded and generous; no wall-clock duration is asserted
 * (bench/attach.ts measures the latencies).
 */
import { quietPort } from '../harness/ports';
import { strict as assert } from 'node:assert';
import { LuaInterpreter, runtimeVariants } from '../harness/interpreters';
import { LuaProcess, spawnLua } from '../harness/luaProcess';
import { TestIde } from '../harness/testIde';
import { LuaStackFrame } from '../../src/protocol';
import { BUNDLE_DIR, line, runtimeScenario, sleep, topOf } from './helpers';

// The programs: test/scenarios/attach.
const { dir: FIXTURES, fixture, lineOf } = runtimeScenario('attach');

const IDLE = 'attach_idle.lua';
const BUSY = 'attach_busy.lua';
const TICK_ONCE = 'attach_tickonce.lua';
const ENGINE = 'attach_engine.lua';
/** The engine-shaped game's heap, in MB: a game's, against which GC cycles come minutes apart. */
const GAME_HEAP_MB = '30';

/** Bound of every single wait (a connection, a stop, an exit): ten attach intervals. */
const BOUND_MS = 10_000;

interface Attached {
  ide: TestIde;
  top: LuaStackFrame;
}

for (const lua of runtimeVariants()) {
  describe(`runtime attach timing (${lua.label})`, function () {
    this.timeout(90_000);
    const ides: TestIde[] = [];
    const games: LuaProcess[] = [];
    afterEach(async () => {
      for (const game of games.splice(0)) game.kill();
      for (const ide of ides.splice(0)) await ide.close();
    });

    /** Everything the program said, for failure messages. */
    function evidence(game: LuaProcess): string {
      return `${game.describe()}; stdout: ${game.stdout.slice(-800) || '(empty)'}`;
    }

    /** Starts `name` on `port` (nothing listens there) and waits until it ran start(). */
    async function startGame(
      interpreter: LuaInterpreter,
      name: string,
      port: number,
      args: string[] = [],
    ): Promise<LuaProcess> {
      const game = spawnLua(interpreter, fixture(name), {
        args: [String(port), ...args],
        luaPath: [BUNDLE_DIR],
        cwd: FIXTURES,
      });
      games.push(game);
      const ready = await game.waitForOutput(/ready\t(\w+)\n/, BOUND_MS);
      assert.equal(ready[1], 'false', 'start() found no IDE (nothing listened yet)');
      return game;
    }

    /** `LuaPanda.getInfo()` through the REPL (globals when running, the frame when stopped). */
    async function getInfo(ide: TestIde, stackId = '2'): Promise<string> {
      const [result] = await ide.connection.request('runREPLExpression', {
        Expression: 'LuaPanda.getInfo()',
        stackId,
      });
      return result.value;
    }

    /**
     * Starts listening on `port`, waits for the game, handshakes, sets a breakpoint at `marker`
     * of `file` and waits for the stop there.
     */
    async function listenUntilStop(
      game: LuaProcess,
      port: number,
      file: string,
      marker: string,
      when: string,
    ): Promise<Attached> {
      const ide = await TestIde.start({ port });
      ides.push(ide);
      try {
        await ide.accept(BOUND_MS);
      } catch (error) {
        throw new Error(`${when}: ${(error as Error).message}; ${evidence(game)}`);
      }
      await ide.handshake({ cwd: FIXTURES, waitConfigurationDone: true });
      await ide.connection.request('setBreakPoint', {
        path: fixture(file),
        bks: [line(lineOf(file, marker))],
      });
      await ide.connection.request('configurationDone', {});
      let stop;
      try {
        stop = await ide.nextStop('stopOnBreakpoint', BOUND_MS);
      } catch (error) {
        const info = await getInfo(ide).catch((e: Error) => `(getInfo failed: ${e.message})`);
        throw new Error(
          `${when}: attached but ${(error as Error).message}; getInfo: ${info}; ${evidence(game)}`,
        );
      }
      const top = topOf(stop.stack);
      assert.equal(top.line, lineOf(file, marker), `${when}: stopped at line ${top.line}`);
      return { ide, top };
    }

    /** The accelerator is in use exactly in the native variant (getInfo says so while attached). */
    async function assertVariant(s: Attached): Promise<void> {
      const info = await getInfo(s.ide, String(s.top.index));
      if (lua.native) assert.match(info, /native accelerator: luapanda_native\d+ in use/, info);
      else assert.match(info, /native accelerator: not in use/, info);
    }

    /** Ends the loop through the REPL, lets the program run out and checks it exited 0. */
    async function endGame(s: Attached, game: LuaProcess, file: string, done: RegExp) {
      const [set] = await s.ide.connection.request('runREPLExpression', {
        Expression: 'running = false',
        stackId: String(s.top.index),
      });
      assert.equal(set.isSuccess, true, `running = false: ${set.value}`);
      await s.ide.connection.request('setBreakPoint', { path: fixture(file), bks: [] });
      await s.ide.connection.request('continue', {});
      const exit = await game.waitForExit(BOUND_MS);
      assert.equal(exit.code, 0, evidence(game));
      assert.match(game.stdout, done);
    }

    it('a game started first attaches when the IDE starts listening later, in a phase that allocates nothing (tick() per frame)', async () => {
      const port = await quietPort();
      const game = await startGame(lua, IDLE, port);
      await sleep(2_000); // the game runs on undebugged, its attempts failing
      const s = await listenUntilStop(game, port, IDLE, 'frame', 'first attach');
      await assertVariant(s);
      await endGame(s, game, IDLE, /idle done\ttrue/);
    });

    it('a game started first that allocates (no tick()) attaches through the GC heartbeat when the IDE starts listening later', async () => {
      const port = await quietPort();
      const game = await startGame(lua, BUSY, port);
      await sleep(2_000);
      const s = await listenUntilStop(game, port, BUSY, 'frame', 'first attach');
      await assertVariant(s);
      await endGame(s, game, BUSY, /busy done\ttrue/);
    });

    // Without the accelerator such a game is reached only at a GC cycle (minutes apart with this
    // heap) or a tick(): the floor the attach wait's hint and the engine guide describe, and
    // bench/attach.ts measures.
    (lua.native ? it : it.skip)(
      'an engine-shaped game (sleep-paced frames, little allocation, game-sized heap, no tick()) attaches and re-attaches through the wake timer',
      async () => {
        const port = await quietPort();
        const game = await startGame(lua, ENGINE, port, [GAME_HEAP_MB]);
        await sleep(1_000);
        let s = await listenUntilStop(game, port, ENGINE, 'frame', 'first attach');
        await assertVariant(s);
        // The IDE dies while the game is stopped; a new one is reached the same way.
        s.ide.connection.destroy();
        await s.ide.close();
        ides.splice(ides.indexOf(s.ide), 1);
        await sleep(600);
        assert.equal(game.hasExited, false, `the game died; ${evidence(game)}`);
        s = await listenUntilStop(
          game,
          port,
          ENGINE,
          'frame',
          're-attach after a crash while stopped',
        );
        await endGame(s, game, ENGINE, /engine done\ttrue\ttrue/);
      },
    );

    it('re-attaches after a detach and after an IDE crash (stopped or running), in a phase that allocates nothing', async () => {
      const port = await quietPort();
      // A short attachInterval: five sessions at the default 1 s would only make the test long.
      const game = await startGame(lua, IDLE, port, ['0.2']);
      await sleep(500);
      // How each session ends: a detach as the adapter does it (stopRun, then a graceful close),
      // or a crash (the socket dropped with nothing said), while stopped or while running.
      const leaves = [
        { how: 'detach while stopped', crash: false, running: false },
        { how: 'detach while running', crash: false, running: true },
        { how: 'crash while stopped', crash: true, running: false },
        { how: 'crash while running', crash: true, running: true },
      ];
      let previous = 'first attach';
      for (const leave of leaves) {
        const s = await listenUntilStop(game, port, IDLE, 'frame', previous);
        if (leave.running) {
          await s.ide.connection.request('setBreakPoint', { path: fixture(IDLE), bks: [] });
          await s.ide.connection.request('continue', {});
        }
        if (leave.crash) {
          s.ide.connection.destroy();
        } else {
          await s.ide.connection.request('stopRun', {}, { timeoutMs: 2_000 });
          await s.ide.connection.close();
        }
        await s.ide.close();
        ides.splice(ides.indexOf(s.ide), 1);
        // Nobody listens for a while: the game runs on, and its attempts meanwhile fail.
        await sleep(600);
        assert.equal(game.hasExited, false, `${leave.how}: the game died; ${evidence(game)}`);
        previous = `re-attach after ${leave.how}`;
      }
      const s = await listenUntilStop(game, port, IDLE, 'frame', previous);
      await endGame(s, game, IDLE, /idle done\ttrue/);
    });

    it('a phase with neither allocation nor tick() waits (the documented limit); its first tick() attaches at once', async () => {
      const port = await quietPort();
      // First phase: 1.5 s of CPU time spinning; the IDE listens from its start.
      const game = await startGame(lua, TICK_ONCE, port, ['1.5']);
      const s = await listenUntilStop(game, port, TICK_ONCE, 'afterTick', 'tick() once');
      await s.ide.connection.request('continue', {});
      const exit = await game.waitForExit(BOUND_MS);
      assert.equal(exit.code, 0, evidence(game));
      assert.match(game.stdout, /tick-once done\ttrue/);
    });
  });
}
