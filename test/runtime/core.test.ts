/**
 * The bundled Lua runtime (dist/lua/LuaPanda.lua) under every installed interpreter, driven
 * through src/protocol over real TCP: handshake, breakpoints, stacks, variables, stepping.
 */
import { strict as assert } from 'node:assert';
import {
  FEATURES,
  PROTOCOL_VERSION,
  RUNTIME_FEATURES,
  RUNTIME_NAME,
  RUNTIME_VERSION,
} from '../../src/protocol';
import { runtimeVariants } from '../harness/interpreters';
import { closeAll, finish, fixture, line, lineOf, startSession, topOf } from './helpers';

for (const lua of runtimeVariants()) {
  describe(`runtime core (${lua.label})`, function () {
    this.timeout(20_000);
    afterEach(closeAll);

    it('answers the handshake with our runtime, its features and the Lua version', async () => {
      const s = await startSession(lua, 'basic.lua');
      assert.equal(s.reply.runtime, RUNTIME_NAME);
      assert.equal(s.reply.debuggerVer, PROTOCOL_VERSION);
      assert.equal(s.reply.runtimeVersion, RUNTIME_VERSION);
      assert.equal(s.reply.UseLoadstring, true);
      // The contract's features, and under LuaJIT with its compiler on, jitCompiles.
      const jitOn = lua.isLuaJIT && s.reply.features?.includes(FEATURES.jitCompiles);
      assert.deepEqual(s.reply.features, [
        ...RUNTIME_FEATURES,
        ...(jitOn ? [FEATURES.jitCompiles] : []),
      ]);
      assert.match(s.reply.luaVersion ?? '', lua.isLuaJIT ? /LuaJIT/ : /^Lua 5\./);
      const out = await finish(s);
      assert.match(out, /result\t15\t5\t3\t7/);
    });

    it('stops at a breakpoint with function names, file and line, then runs to the end', async () => {
      const s = await startSession(lua, 'basic.lua', {
        breakpoints: { 'basic.lua': [line(lineOf('basic.lua', 'add'))] },
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      const top = topOf(stop.stack);
      assert.equal(top.line, lineOf('basic.lua', 'add'));
      assert.equal(top.file, 'basic.lua');
      assert.equal(top.index, 2);
      assert.equal(top.name, 'add');
      assert.equal(stop.stack[1].name, 'accumulate');
      assert.equal(stop.stack[1].line, lineOf('basic.lua', 'accCall'));
      assert.equal(stop.stack[2].name, 'main chunk');
      assert.equal(top.coroutine, 'main');
      // remove the breakpoint and continue: no more stops, the program finishes
      await s.ide.connection.request('setBreakPoint', { path: fixture('basic.lua'), bks: [] });
      await s.ide.connection.request('continue', {});
      const out = await finish(s);
      assert.match(out, /result\t15/);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 1);
    });

    it('matches breakpoints by full path when autoPathMode is off', async () => {
      const s = await startSession(lua, 'basic.lua', {
        settings: { autoPathMode: false },
        breakpoints: { 'basic.lua': [line(lineOf('basic.lua', 'add'))] },
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      assert.equal(topOf(stop.stack).file, fixture('basic.lua').toLowerCase());
      await s.ide.connection.request('setBreakPoint', { path: fixture('basic.lua'), bks: [] });
      // a breakpoint for a file of the same name elsewhere does not fire here
      await s.ide.connection.request('setBreakPoint', {
        path: '/elsewhere/basic.lua',
        bks: [line(lineOf('basic.lua', 'add'))],
      });
      await s.ide.connection.request('continue', {});
      await finish(s);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 1);
    });

    it('lists locals, upvalues, globals and table children with metatables', async () => {
      const s = await startSession(lua, 'basic.lua', {
        breakpoints: { 'basic.lua': [line(lineOf('basic.lua', 'accNext'))] },
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      const frame = String(topOf(stop.stack).index);
      const locals = await s.ide.connection.request('getVariable', {
        varRef: '10000',
        stackId: frame,
      });
      const byName = new Map(locals.map((v) => [v.name, v]));
      assert.equal(byName.get('n')?.value, '5');
      assert.equal(byName.get('total')?.value, '1');
      assert.equal(byName.get('i')?.value, '1');
      const ups = await s.ide.connection.request('getVariable', {
        varRef: '30000',
        stackId: frame,
      });
      assert.ok(ups.some((v) => v.name === 'add' && v.type === 'function'));
      assert.ok(ups.some((v) => v.name === 'counter' && v.value === '0'));
      const mainFrame = String(stop.stack[1].index);
      const mainLocals = await s.ide.connection.request('getVariable', {
        varRef: '10000',
        stackId: mainFrame,
      });
      const config = mainLocals.find((v) => v.name === 'config');
      assert.ok(config && config.type === 'table');
      // A preview of the first fields, in the order the children are listed.
      assert.equal(config.value, '{enabled = true, name = "demo", nested = {…}, size = 3}');
      assert.equal(config.childCount, 5);
      const children = await s.ide.connection.request('getVariable', {
        varRef: String(config.variablesReference),
        stackId: 'NaN',
      });
      const names = children.map((v) => v.name);
      assert.deepEqual(names, ['enabled', 'name', 'nested', 'size', '_Metatable_']);
      const nameVar = children.find((v) => v.name === 'name');
      assert.equal(nameVar?.value, '"demo"');
      assert.equal(nameVar?.evaluateName, 'config.name');
      const nested = children.find((v) => v.name === 'nested');
      const nestedKids = await s.ide.connection.request('getVariable', {
        varRef: String(nested?.variablesReference),
        stackId: 'NaN',
      });
      const list = nestedKids.find((v) => v.name === 'list');
      const items = await s.ide.connection.request('getVariable', {
        varRef: String(list?.variablesReference),
        stackId: 'NaN',
      });
      assert.deepEqual(
        items.map((v) => [v.name, v.value]),
        [
          ['[1]', '10'],
          ['[2]', '20'],
          ['[3]', '30'],
        ],
      );
      assert.equal(items[2].evaluateName, 'config.nested.list[3]');
      const globals = await s.ide.connection.request('getVariable', {
        varRef: '20000',
        stackId: frame,
      });
      assert.ok(globals.some((v) => v.name === 'globalValue' && v.value === '7'));
      assert.ok(globals.some((v) => v.name === 'LuaPanda'));
      await s.ide.connection.request('setBreakPoint', { path: fixture('basic.lua'), bks: [] });
      await s.ide.connection.request('continue', {});
      await finish(s);
    });
  });
}
