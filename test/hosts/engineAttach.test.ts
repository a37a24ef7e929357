/**
 * The engine game with an IDE: each host (pure and native) runs the game with the port as the
 * boot script's argument, so boot.lua's `start()` connects to the test IDE; a breakpoint in
 * game/player.lua (loaded by the host's searcher as `game/player.lua`) stops inside the frame the
 * host called from C, shows the method's locals, and once cleared the frames go on. The game runs
 * until it is killed, as a game runs until it is closed: the test ends it and the root hooks check
 * that nothing is left. How the other engine-hosted tests start a game and attach to it. A
 * function breakpoint on the module's local class (`Player:move`, with the definition site the
 * IDE reads in the sources), set once the game has run a few frames, binds at once and stops in
 * the method the next frame.
 */
import { strict as assert } from 'node:assert';
import { engineHostVariants, useEngines } from '../harness/engineHost';
import { scenario } from '../harness/scenario';
import { TestIde } from '../harness/testIde';
import { line, topOf } from '../runtime/helpers';
import { FunctionSites } from '../../src/session/breakpoints/functionSites';
import { normalizePath } from '../../src/session/paths';

const game = scenario('engine');
const PLAYER = 'game/player.lua';
const MOVE = game.line(PLAYER, 'move');
const HIT = game.line(PLAYER, 'hit');

describe('engine hosts: the engine game attached from the boot script', function () {
  this.timeout(30_000);
  let ide: TestIde | undefined;
  const engines = useEngines();

  afterEach(async () => {
    await ide?.close();
    ide = undefined;
  });

  for (const host of engineHostVariants().hosts) {
    it(`${host.label}: stops in the module method Update calls from C, then runs on`, async () => {
      ide = await TestIde.start();
      const engine = engines.start(host, { root: game.dir, bootArgs: [String(ide.port)] });
      await ide.accept();
      await ide.handshake({ cwd: game.dir, waitConfigurationDone: true });
      const c = ide.connection;
      await c.request('setBreakPoint', { path: game.file(PLAYER), bks: [line(MOVE)] });
      await c.request('configurationDone', {});

      const stop = await ide.nextStop('stopOnBreakpoint');
      const top = topOf(stop.stack);
      assert.equal(top.line, MOVE);
      // The chunk name the host's searcher gave, not a file system path.
      assert.equal(top.oPath, PLAYER, JSON.stringify(stop.stack));
      const caller = stop.stack[1];
      assert.equal(caller?.oPath, 'boot.lua', JSON.stringify(stop.stack));
      assert.equal(caller?.line, game.line('boot.lua', 'update'));
      const locals = await c.request('getVariable', {
        varRef: '10000',
        stackId: String(top.index),
      });
      assert.equal(locals.find((v) => v.name === 'dt')?.value, '0.01', JSON.stringify(locals));

      await c.request('setBreakPoint', { path: game.file(PLAYER), bks: [] });
      await c.request('continue', {});
      if (host.native && !host.isLuaJIT) {
        // The error only the engine catches stops there too (engineErrors.test.ts).
        await ide.nextStop('stopOnException');
        await c.request('continue', {});
      }
      await engine.waitForOutput(/^\[lua\] frame 6: /m);
      await engine.waitForOutput(/^\[lua\] job tick 6 /m);
      assert.match(engine.stderr, /^\[engine\] error in Update: game\/player\.lua:\d+: /m);
      assert.equal(engine.hasExited, false, 'the game runs until it is closed');
    });

    it(`${host.label}: a function breakpoint on the module's local class, set in a running game`, async () => {
      ide = await TestIde.start();
      const engine = engines.start(host, { root: game.dir, bootArgs: [String(ide.port)] });
      await ide.accept();
      await ide.handshake({ cwd: game.dir, waitConfigurationDone: true });
      const c = ide.connection;
      // The module's methods ran before any breakpoint was set, so only what the loaded modules
      // hold tells the runtime that game/player.lua is loaded. Without the accelerator a game
      // without `tick()` reads commands at its own pace while it runs (LuaJIT's took 2–3 s here,
      // once over 10 s): there the function breakpoint is set in a stop (frame 4, a line
      // breakpoint).
      const whileRunning = host.native;
      // (The error at frame 4 that only the engine catches would stop first: engineErrors.test.ts.)
      await c.request('setExceptionBreakpoints', { filters: [] });
      if (!whileRunning) {
        await c.request('setBreakPoint', { path: game.file(PLAYER), bks: [line(HIT)] });
      }
      await c.request('configurationDone', {});
      if (whileRunning) {
        await engine.waitForOutput(/^\[lua\] frame 5: /m);
      } else {
        await ide.nextStop('stopOnBreakpoint');
        await c.request('setBreakPoint', { path: game.file(PLAYER), bks: [] });
      }
      const found = await new FunctionSites().find(['Player:move'], [game.file(PLAYER)], undefined);
      const sites = (found.get('Player:move') ?? []).map((s) => ({
        ...s,
        path: normalizePath(s.path),
      }));
      assert.equal(sites.length, 1);
      const { results } = await c.request('setFunctionBreakPoint', {
        names: [{ name: 'Player:move', sites }],
      });
      assert.deepEqual(
        [results[0].verified, results[0].oPath, results[0].line],
        [true, PLAYER, MOVE],
        JSON.stringify(results),
      );
      if (!whileRunning) await c.request('continue', {});
      const stop = await ide.nextStop('stopOnBreakpoint');
      assert.deepEqual('hitFunctions' in stop.info ? stop.info.hitFunctions : [], ['Player:move']);
      assert.equal(topOf(stop.stack).line, MOVE);
      assert.equal(topOf(stop.stack).oPath, PLAYER);

      await c.request('setFunctionBreakPoint', { names: [] });
      await c.request('continue', {});
      const frames = Number(/frame (\d+): [^\n]*\n(?![\s\S]*frame \d+:)/.exec(engine.stdout)?.[1]);
      await engine.waitForOutput(new RegExp(`^\\[lua\\] frame ${frames + 2}: `, 'm'));
      assert.equal(engine.hasExited, false, 'the game runs until it is closed');
    });
  }
});
