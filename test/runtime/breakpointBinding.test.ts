/**
 * Breakpoint binding in the bundled runtime (protocol extension `breakpointsBound`): the
 * setBreakPoint reply says whether the file is loaded; a file loaded later is announced when
 * its code first runs; a breakpoint that names its function binds, when that function is first
 * seen, on its first line with code at or after the requested line (Lua's own line information),
 * or nowhere — and the IDE is told either way.
 */
import { strict as assert } from 'node:assert';
import type { LuaNotification, WireBreakpoint } from '../../src/protocol';
import { runtimeVariants } from '../harness/interpreters';
import { spawnLua } from '../harness/luaProcess';
import { TestIde } from '../harness/testIde';
import { BUNDLE_DIR, runtimeScenario } from './helpers';

// The programs: test/scenarios/breakpointBinding.
const { dir: FIXTURES, fixture, lineOf } = runtimeScenario('breakpointBinding');

type Bound = Extract<LuaNotification, { kind: 'bound' }>;

for (const lua of runtimeVariants()) {
  describe(`runtime breakpoint binding (${lua.label})`, function () {
    this.timeout(20_000);
    let ide: TestIde | undefined;
    let kill: (() => void) | undefined;
    afterEach(async () => {
      kill?.();
      await ide?.close();
    });

    it('announces a file loaded later and binds on the lines that have code', async () => {
      ide = await TestIde.start();
      const proc = spawnLua(lua, fixture('bound_main.lua'), {
        args: [String(ide.port)],
        luaPath: [BUNDLE_DIR],
        cwd: FIXTURES,
      });
      kill = () => proc.kill();
      await ide.accept();
      await ide.handshake({ cwd: FIXTURES, waitConfigurationDone: true });
      const twice = lineOf('bound_mod.lua', 'twice');
      const twiceEnd = lineOf('bound_mod.lua', 'twiceEnd');
      const comment = lineOf('bound_mod.lua', 'comment');
      const last = lineOf('bound_main.lua', 'last') + 1;
      const named = (line: number, first: number, last: number): WireBreakpoint => ({
        verified: true,
        type: 2,
        line,
        requested: line,
        fnFirst: first,
        fnLast: last,
      });
      const mod = await ide.connection.request('setBreakPoint', {
        path: fixture('bound_mod.lua'),
        bks: [named(comment, twice, twiceEnd)],
        notifyBound: true,
      });
      assert.equal(mod.loaded, false, 'bound_mod.lua is required later');
      // The main chunk is on the stack (waiting in start()): loaded. Nothing of the main chunk
      // is at or after its last line: that breakpoint binds nowhere.
      const main = await ide.connection.request('setBreakPoint', {
        path: fixture('bound_main.lua'),
        bks: [named(last, 0, 0)],
        notifyBound: true,
      });
      assert.equal(main.loaded, true);
      await ide.connection.request('configurationDone', {});

      const stop = await ide.nextStop('stopOnBreakpoint');
      const bound = ide.notifications.filter((n): n is Bound => n.kind === 'bound');
      const modNotices = bound.filter((n) => n.path === fixture('bound_mod.lua'));
      assert.ok(modNotices.length > 0, 'bound_mod.lua was announced when it loaded');
      assert.deepEqual(
        modNotices.flatMap((n) => n.lines),
        [{ line: comment, bound: comment + 1 }],
      );
      const mainLines = bound
        .filter((n) => n.path === fixture('bound_main.lua'))
        .flatMap((n) => n.lines);
      assert.deepEqual(mainLines, [{ line: last, bound: 0 }]);
      // The stop is on the bound line, in bound_mod.lua.
      assert.equal(stop.stack[0].line, comment + 1);
      assert.deepEqual(stop.info && 'hitLines' in stop.info ? stop.info.hitLines : [], [
        comment + 1,
      ]);
      await ide.connection.request('continue', {});
      const exit = await proc.waitForExit(15_000);
      assert.equal(exit.code, 0, proc.describe());
      const stops = ide.notifications.filter((n) => n.kind === 'stop');
      assert.equal(stops.length, 1);
    });
  });
}
