/**
 * An engine game held in a loop LuaJIT compiles (test/scenarios/engineJit), reached through the
 * debug adapter as VS Code drives it: the game runs in a C engine host first with nobody
 * listening, its frame enters a long loop with no call, no allocation and no `tick()`, and only
 * then does the IDE attach. The attach, two pauses, a hot reload of the loop's module and a
 * breakpoint set while the loop runs are each answered inside the loop; after detach the frames go
 * on with the reloaded code. Under LuaJIT the loop runs compiled (the game prints the traces it
 * saw); the Lua 5.x hosts run the same game, their loop interpreted. Hosts with the accelerator
 * only: without it no mechanism reaches a loop that never calls back (README, "A game that is
 * already running").
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import type { HotReloadReport } from '../../src/session/hotReload';
import { engineHostVariants, useEngines } from '../harness/engineHost';
import {
  SETTLE,
  SETTLE_LOOP,
  SETTLING,
  assertRanOnReloaded,
  compiledLoopGame,
  doubledPhysics,
} from './compiledLoopGame';
import { freePort } from '../adapter/dapHarness';
import { useDapTest } from '../adapter/useDapTest';

const game = compiledLoopGame;
const PHYSICS = game.file('game/physics.lua');

describe('engine hosts: a game held in a compiled loop, attached later', function () {
  this.timeout(60_000);
  const t = useDapTest();
  const engines = useEngines();

  for (const host of engineHostVariants().hosts.filter((h) => h.native)) {
    const loop = host.isLuaJIT ? 'compiled loop' : 'long loop';
    it(`${host.label}: attach, pause, hot reload and a new breakpoint are answered inside the ${loop}; detach lets it run on`, async () => {
      const port = await freePort();
      const engine = engines.start(host, { root: game.dir, bootArgs: [String(port)] });
      await engine.waitForOutput(SETTLING);
      if (host.isLuaJIT) {
        const traces = Number(SETTLING.exec(engine.stdout)?.[1]);
        assert.ok(traces > 0, `LuaJIT compiled the game's loops before the attach: ${traces}`);
      }

      // The attach itself reaches the loop: the session starts while the frame still holds.
      await t.start('attach', { connectionPort: port, cwd: game.dir });
      assert.doesNotMatch(engine.stdout, /settled/, 'the frame was still in the loop');

      // Twice: after a stop the loop compiles anew and must stay reachable (under LuaJIT the
      // guard against the stopped line's repeat once kept the Lua hook, which compiled code never
      // calls, in place of the C hook the watcher arms).
      for (const round of [1, 2]) {
        await t.dc.pauseRequest({ threadId: 1 });
        const pause = await t.stoppedAt('pause', PHYSICS);
        assert.ok(SETTLE_LOOP.includes(pause.top.line), `pause ${round} on line ${pause.top.line}`);
        assert.equal(pause.top.name, 'physics.settle', JSON.stringify(pause.frames));
        await t.dc.continueRequest({ threadId: pause.event.threadId ?? 1 });
      }

      // Reloaded while the loop runs: simulate's next call (next frame) runs the new code.
      const response = (await t.dc.customRequest('luapanda/hotReload', {
        path: PHYSICS,
        source: doubledPhysics(fs.readFileSync(PHYSICS, 'utf8')),
      })) as DebugProtocol.Response;
      const report = response.body as HotReloadReport;
      assert.equal(report.status, 'success', JSON.stringify(report));
      assert.ok(
        report.replaced.some((e) => /simulate$/.test(e.name)),
        JSON.stringify(report),
      );

      // A breakpoint set while the loop runs stops in it; then the game is let out of the loop.
      await t.dc.setBreakpointsRequest({
        source: { path: PHYSICS },
        breakpoints: [{ line: SETTLE }],
      });
      const hit = await t.stoppedAt('breakpoint', PHYSICS, SETTLE);
      assert.ok(Number((await t.locals(hit.top.id)).steps) > 0);
      await t.dc.evaluateRequest({
        expression: 'Settling = false',
        context: 'repl',
        frameId: hit.top.id,
      });
      await t.dc.setBreakpointsRequest({ source: { path: PHYSICS }, breakpoints: [] });
      await t.dc.continueRequest({ threadId: hit.event.threadId ?? 1 });
      await engine.waitForOutput(/^\[lua\] frame 5: /m);
      await t.dc.disconnectRequest({});

      await assertRanOnReloaded(engine);
    });
  }
});
