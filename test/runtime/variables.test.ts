/**
 * Variables and evaluation in the bundled runtime: watch (read-only), REPL (writes back),
 * setVariable on locals, upvalues, globals and table fields, safe descriptions of hostile values,
 * paging of a 100,000-entry table, cycles, varargs and strings that are not valid UTF-8.
 */
import { strict as assert } from 'node:assert';
import { runtimeVariants } from '../harness/interpreters';
import {
  closeAll,
  finish,
  fixture,
  line,
  lineOf,
  runtimeScenario,
  startSession,
  topOf,
} from './helpers';

// values.lua: test/scenarios/variables; basic.lua, shared by many runtime tests, in FIXTURES.
const variables = runtimeScenario('variables');

for (const lua of runtimeVariants()) {
  describe(`runtime variables (${lua.label})`, function () {
    this.timeout(20_000);
    afterEach(closeAll);

    it('evaluates watches read-only and REPL text with write-back, in the chosen frame', async () => {
      const s = await startSession(lua, 'basic.lua', {
        breakpoints: { 'basic.lua': [line(lineOf('basic.lua', 'add'))] },
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      const top = String(topOf(stop.stack).index);
      const caller = String(stop.stack[1].index);
      const c = s.ide.connection;
      const w = await c.request('getWatchedVariable', { varName: 'a + b', stackId: top });
      assert.equal(w[0].value, '1');
      assert.equal(w[0].isSuccess, true);
      const inCaller = await c.request('getWatchedVariable', {
        varName: 'n * 10 + total',
        stackId: caller,
      });
      assert.equal(inCaller[0].value, '50');
      const upv = await c.request('getWatchedVariable', {
        varName: 'config.nested.inner.tag',
        stackId: String(stop.stack[2].index),
      });
      assert.equal(upv[0].value, '"deep"');
      // A watch that assigns has no effect on the local.
      const sneaky = await c.request('getWatchedVariable', {
        varName: '(function() a = 99 return a end)()',
        stackId: top,
      });
      assert.equal(sneaky[0].isSuccess, true);
      const after = await c.request('getWatchedVariable', { varName: 'a', stackId: top });
      assert.equal(after[0].value, '0');
      const bad = await c.request('getWatchedVariable', { varName: 'a +', stackId: top });
      assert.equal(bad[0].isSuccess, false);
      const failing = await c.request('getWatchedVariable', {
        varName: 'nosuch.field',
        stackId: top,
      });
      assert.equal(failing[0].isSuccess, false);
      assert.match(failing[0].value, /nosuch/);
      // REPL: assignment writes the local back; an expression returns its value.
      const repl = await c.request('runREPLExpression', { Expression: 'a = 100', stackId: top });
      assert.equal(repl[0].isSuccess, true);
      const value = await c.request('runREPLExpression', { Expression: 'p a + b', stackId: top });
      assert.equal(value[0].name, 'Exp');
      assert.equal(value[0].value, '101');
      const upWrite = await c.request('runREPLExpression', {
        Expression: 'counter = 1000',
        stackId: top,
      });
      assert.equal(upWrite[0].isSuccess, true);
      const err = await c.request('runREPLExpression', {
        Expression: 'error("nope")',
        stackId: top,
      });
      assert.equal(err[0].isSuccess, false);
      assert.match(err[0].value, /nope/);
      await c.request('setBreakPoint', { path: fixture('basic.lua'), bks: [] });
      await c.request('continue', {});
      const out = await finish(s);
      // sum was computed from a = 100 on the first call (add has no upvalue counter: a global was set).
      assert.match(out, /result\t115\t5\t3\t7/);
    });

    it('sets locals, upvalues, globals and table fields (not a global of the same name)', async () => {
      const s = await startSession(lua, 'basic.lua', {
        breakpoints: { 'basic.lua': [line(lineOf('basic.lua', 'accNext'))] },
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      const top = String(topOf(stop.stack).index);
      const main = String(stop.stack[1].index);
      const c = s.ide.connection;
      const local = await c.request('setVariable', {
        varRef: '10000',
        stackId: top,
        varName: 'total',
        newValue: '100',
      });
      assert.equal(local.success, true);
      assert.equal(local.value, '100');
      const up = await c.request('setVariable', {
        varRef: '30000',
        stackId: top,
        varName: 'counter',
        newValue: '10',
      });
      assert.equal(up.success, true);
      const glob = await c.request('setVariable', {
        varRef: '20000',
        stackId: top,
        varName: 'globalValue',
        newValue: '"seven"',
      });
      assert.equal(glob.success, true);
      const locals = await c.request('getVariable', { varRef: '10000', stackId: main });
      const config = locals.find((v) => v.name === 'config');
      const field = await c.request('setVariable', {
        varRef: String(config?.variablesReference),
        stackId: 'NaN',
        varName: 'size',
        newValue: 'n + 1',
      });
      assert.equal(field.success, true);
      assert.equal(field.value, '6');
      const globals = await c.request('getVariable', { varRef: '20000', stackId: top });
      assert.equal(
        globals.find((v) => v.name === 'size'),
        undefined,
        'no global "size" was created',
      );
      const missing = await c.request('setVariable', {
        varRef: '10000',
        stackId: top,
        varName: 'nosuch',
        newValue: '1',
      });
      assert.equal(missing.success, false);
      await c.request('setBreakPoint', { path: fixture('basic.lua'), bks: [] });
      await c.request('continue', {});
      const out = await finish(s);
      assert.match(out, /result\t114\t15\t6\tseven/);
    });

    it('describes hostile values safely, pages a 100k table, handles cycles, varargs and odd bytes', async () => {
      const s = await variables.startSession(lua, 'values.lua', {
        settings: { pagingLimit: 100 },
        breakpoints: { 'values.lua': [line(variables.lineOf('values.lua', 'varargs'))] },
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      const top = String(topOf(stop.stack).index);
      const main = String(stop.stack[1].index);
      const c = s.ide.connection;
      const fLocals = await c.request('getVariable', { varRef: '10000', stackId: top });
      assert.equal(fLocals.find((v) => v.name === 'count')?.value, '3');
      if (lua.command !== 'lua5.1') {
        const va = fLocals.find((v) => v.name === '...');
        assert.ok(va, 'varargs are listed');
        const items = await c.request('getVariable', {
          varRef: String(va.variablesReference),
          stackId: 'NaN',
        });
        assert.deepEqual(
          items.map((v) => v.value),
          ['"x"', '2'],
        );
      }
      const locals = await c.request('getVariable', { varRef: '10000', stackId: main });
      const get = (n: string) => {
        const v = locals.find((x) => x.name === n);
        if (!v) throw new Error(`no local ${n}`);
        return v;
      };
      // LuaJIT cannot bound a Lua __tostring: previews do not run it there.
      if (lua.isLuaJIT) assert.equal(get('bad').value, '{}');
      else
        assert.equal(get('bad').value, '{} -- __tostring failed: values.lua:6: tostring exploded');
      if (!lua.isLuaJIT)
        assert.match(get('looping').value, /^\{\} -- __tostring failed: .*instructions/);
      const text = get('text');
      // Escaped as in Lua source; a byte that is not UTF-8 arrives as its Latin-1 character.
      assert.equal(text.value, '"bar|*|baz\\1\u00ff"');
      const big = get('big');
      assert.equal(big.childCount, 100000);
      const firstPage = await c.request('getVariable', {
        varRef: String(big.variablesReference),
        stackId: 'NaN',
      });
      assert.equal(firstPage.length, 100);
      const slice = await c.request('getVariable', {
        varRef: String(big.variablesReference),
        stackId: 'NaN',
        start: 99990,
        count: 50,
      });
      assert.deepEqual(
        slice.map((v) => v.name),
        [
          '[99991]',
          '[99992]',
          '[99993]',
          '[99994]',
          '[99995]',
          '[99996]',
          '[99997]',
          '[99998]',
          '[99999]',
          '[100000]',
        ],
      );
      const cyc = get('cyc');
      const kids = await c.request('getVariable', {
        varRef: String(cyc.variablesReference),
        stackId: 'NaN',
      });
      const self = kids.find((v) => v.name === 'self');
      assert.equal(
        self?.variablesReference,
        cyc.variablesReference,
        'a cycle reuses the reference',
      );
      const loopingKids = await c.request('getVariable', {
        varRef: String(get('looping').variablesReference),
        stackId: 'NaN',
      });
      assert.deepEqual(
        loopingKids.map((v) => v.name),
        ['_Metatable_'],
      );
      const ud = get('ud');
      assert.equal(ud.type, 'userdata');
      assert.match(ud.value, /^(FILE\*|userdata): \S+ -- file \(/);
      const udKids = await c.request('getVariable', {
        varRef: String(ud.variablesReference),
        stackId: 'NaN',
      });
      assert.deepEqual(
        udKids.map((v) => v.name),
        ['_Metatable_'],
      );
      await c.request('continue', {});
      const out = await finish(s);
      assert.match(out, /values done\t100000\ttrue\ttrue\ttrue\ttrue\ttrue/);
    });
  });
}
