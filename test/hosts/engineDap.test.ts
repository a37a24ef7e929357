/**
 * The engine game through the debug adapter, as VS Code drives it (DebugClient): the game runs
 * in a C engine host first, its boot script having called `start()` with nobody listening; the
 * attach starts later, and the game is reached on its own (the accelerator's wake timer: no
 * `tick()` in the game). A breakpoint in a module Update calls from C stops with the names the
 * code gives; the error only the engine catches stops at its line (Lua 5.1-5.4); after detach the
 * frames go on. Hosts with the accelerator, and Lua 5.1 without it (its count hook while no IDE is
 * attached): elsewhere without it an engine-shaped game that never calls `tick()` is not reached
 * in a bounded time (README, "A game that is already running").
 */
import { strict as assert } from 'node:assert';
import { engineHostVariants, useEngines } from '../harness/engineHost';
import { scenario } from '../harness/scenario';
import { DapTest, freePort } from '../adapter/dapHarness';
import { useDapTest } from '../adapter/useDapTest';

const game = scenario('engine');
const PLAYER = game.file('game/player.lua');
const MOVE = game.line('game/player.lua', 'move');
const HIT = game.line('game/player.lua', 'hit');

describe('engine hosts: attached later through the debug adapter', function () {
  this.timeout(40_000);
  const t = useDapTest();
  const engines = useEngines();

  // Lua 5.1 without the accelerator: its count hook while unattached (idlepoll.lua) reaches the
  // game, and again after a detach.
  for (const host of engineHostVariants().hosts.filter((h) => h.host === 'lua5.1' && !h.native)) {
    it(`${host.label}: a running game is reached by its count hook, stops at a breakpoint, and again after a detach`, async () => {
      const port = await freePort();
      const engine = engines.start(host, { root: game.dir, bootArgs: [String(port)] });
      await engine.waitForOutput(/^\[lua\] frame 2: /m);
      const attach = (dap: DapTest) =>
        dap.start(
          'attach',
          { connectionPort: port, cwd: game.dir },
          { breakpoints: { [PLAYER]: [{ line: MOVE }] } },
        );
      for (const round of [1, 2]) {
        const dap = round === 1 ? t : await new DapTest().open();
        try {
          await attach(dap);
          const stop = await dap.stoppedAt('breakpoint', PLAYER, MOVE);
          assert.equal(stop.top.name, 'Player:move', `attach ${round}`);
          await dap.dc.setBreakpointsRequest({ source: { path: PLAYER }, breakpoints: [] });
          await dap.dc.disconnectRequest({});
        } finally {
          if (round === 2) await dap.close();
        }
        const frames = (engine.stdout.match(/^\[lua\] frame \d+: /gm) ?? []).length;
        await engine.waitForOutput(new RegExp(`^\\[lua\\] frame ${frames + 3}: `, 'm'));
      }
      assert.equal(engine.hasExited, false, 'the game runs until it is closed');
    });
  }

  for (const host of engineHostVariants().hosts.filter((h) => h.native)) {
    const errorStop = host.isLuaJIT ? '' : ' and at the engine-caught error';
    it(`${host.label}: a running game is reached, stops at a breakpoint${errorStop}, and runs on after detach`, async () => {
      const port = await freePort();
      const engine = engines.start(host, { root: game.dir, bootArgs: [String(port)] });
      await engine.waitForOutput(/^\[lua\] frame 2: /m);

      await t.start(
        'attach',
        { connectionPort: port, cwd: game.dir },
        { breakpoints: { [PLAYER]: [{ line: MOVE }] } },
      );
      const stop = await t.stoppedAt('breakpoint', PLAYER, MOVE);
      assert.equal(stop.top.name, 'Player:move', JSON.stringify(stop.frames));
      assert.equal(stop.frames[1]?.source?.path, game.file('boot.lua'));
      assert.equal((await t.locals(stop.top.id)).dt, '0.01');

      // The planted error ran before the attach: the debug console raises it once more.
      await t.dc.evaluateRequest({
        expression: 'RaiseNow = true',
        context: 'repl',
        frameId: stop.top.id,
      });
      await t.dc.setBreakpointsRequest({ source: { path: PLAYER }, breakpoints: [] });
      await t.dc.continueRequest({ threadId: stop.event.threadId ?? 1 });
      if (!host.isLuaJIT) {
        const error = await t.stoppedAt('exception', PLAYER, HIT);
        const info = await t.dc.exceptionInfoRequest({ threadId: error.event.threadId ?? 1 });
        assert.match(info.body.description ?? '', /attempt to perform arithmetic/);
        assert.equal((await t.locals(error.top.id)).damage, 'nil');
        await t.dc.continueRequest({ threadId: error.event.threadId ?? 1 });
      }
      const errors = () =>
        (engine.stderr.match(/^\[engine\] error in Update: game\/player\.lua:\d+: /gm) ?? [])
          .length;
      const attachedAt = (engine.stdout.match(/^\[lua\] frame \d+: /gm) ?? []).length;
      await engine.waitForOutput(new RegExp(`^\\[lua\\] frame ${attachedAt + 2}: `, 'm'));
      assert.equal(errors(), 2, engine.stderr);

      await t.dc.disconnectRequest({});
      const frames = (engine.stdout.match(/^\[lua\] frame \d+: /gm) ?? []).length;
      await engine.waitForOutput(new RegExp(`^\\[lua\\] frame ${frames + 3}: `, 'm'));
      assert.equal(engine.hasExited, false, 'the game runs until it is closed');
    });

    it(`${host.label}: with a game-sized heap, a new IDE re-attaches after the first was killed while the game was stopped`, async () => {
      const port = await freePort();
      const engine = engines.start(host, {
        root: game.dir,
        bootArgs: [String(port)],
        ballastMb: 48,
      });
      await engine.waitForOutput(/^\[lua\] frame 2: /m);
      const attach = (dap: DapTest) =>
        dap.start(
          'attach',
          { connectionPort: port, cwd: game.dir },
          { breakpoints: { [PLAYER]: [{ line: MOVE }] } },
        );
      await attach(t);
      await t.stoppedAt('breakpoint', PLAYER, MOVE);
      t.killAdapter();

      const second = await new DapTest().open();
      try {
        await attach(second);
        const stop = await second.stoppedAt('breakpoint', PLAYER, MOVE);
        assert.equal(stop.top.name, 'Player:move');
        await second.dc.setBreakpointsRequest({ source: { path: PLAYER }, breakpoints: [] });
        await second.dc.disconnectRequest({});
      } finally {
        await second.close();
      }
      const frames = (engine.stdout.match(/^\[lua\] frame \d+: /gm) ?? []).length;
      await engine.waitForOutput(new RegExp(`^\\[lua\\] frame ${frames + 3}: `, 'm'));
      assert.equal(engine.hasExited, false, 'the game runs until it is closed');
    });
  }
});
