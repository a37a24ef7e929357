/**
 * Value previews in the bundled runtime: tables as Lua literals of their first fields (arrays
 * with their length, nested tables one level deep, cycles, 100,000-entry tables cut early),
 * objects named after their class (`__name`, a global or loaded-module class table, its
 * `__index`), `__tostring` beside the preview only when it runs within its budget, strings
 * escaped as in Lua source, functions by definition, threads by status, userdata; children named
 * as Lua keys; interpreter temporaries hidden; several results of one expression, and none.
 */
import { strict as assert } from 'node:assert';
import { runtimeVariants } from '../harness/interpreters';
import type { LuaVariable } from '../../src/protocol';
import { closeAll, finish, line, runtimeScenario, topOf } from './helpers';

// The program: test/scenarios/variables/previews.lua.
const { lineOf, startSession } = runtimeScenario('variables');

const ELLIPSIS = '…';
const ADDRESS = '(0x[0-9a-f]+|[0-9A-F]{8,})';

for (const lua of runtimeVariants()) {
  describe(`runtime previews (${lua.label})`, function () {
    this.timeout(20_000);
    afterEach(closeAll);

    it('previews tables, objects, strings, functions, threads and userdata', async () => {
      const s = await startSession(lua, 'previews.lua', {
        breakpoints: { 'previews.lua': [line(lineOf('previews.lua', 'stop'))] },
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      const frame = String(topOf(stop.stack).index);
      const c = s.ide.connection;
      const locals = await c.request('getVariable', { varRef: '10000', stackId: frame });
      const value = (name: string): string => {
        const v = locals.find((x) => x.name === name);
        if (!v) throw new Error(`no local ${name} in ${locals.map((x) => x.name).join(', ')}`);
        return v.value;
      };
      // The interpreter's own slots are not the program's variables.
      assert.deepEqual(
        locals.filter((v) => v.name.startsWith('(')).map((v) => v.name),
        [],
      );
      assert.equal(value('i'), '1');
      assert.equal(value('orc'), '{hp = 60, name = "orc", shield = 0}');
      assert.equal(value('hero'), 'Entity {name = "hero", x = 0, y = 0}');
      // A class table reachable as a loaded module, and one reached through __index.
      assert.equal(value('p1'), 'entities.player {name = "p1"}');
      assert.equal(value('heir'), 'Entity {name = "heir"}');
      assert.equal(value('named'), 'My.Type {}');
      // A local class loaded as a module is named as its source and the call stack name it.
      assert.equal(value('goblin'), 'Monster {name = "goblin"}');
      assert.equal(value('nested'), '{empty = {}, inner = {…}, list = {…}}');
      assert.equal(value('cyc'), '{name = "cycle", self = {…}}');
      assert.equal(value('keys'), '{[1.5] = 4, ["a b"] = 1, ["end"] = 2, plain = 5, [true] = 3}');
      // Arrays: the first elements that fit in about 200 characters, then the length.
      const list = value('list');
      assert.match(list, /^\{1, 2, 3, 4, .*, … \(200\)\}$/);
      assert.ok(Buffer.byteLength(list) <= 200, list);
      assert.match(value('huge'), /^\{1, 2, 3, .*, … \(100000\)\}$/);
      const wide = value('wide');
      assert.match(wide, /^\{k\d+ = \d+, .*, …\}$/);
      assert.ok(Buffer.byteLength(wide) <= 200, wide);
      // Strings as Lua source writes them, long ones cut.
      assert.equal(value('text'), '"a\\nb\\t\\"q\\"\\\\"');
      assert.equal(value('long'), `"${'x'.repeat(195)}"${ELLIPSIS}`);
      // __tostring beside the preview, as a Lua comment, only when it ran within its budget
      // (LuaJIT cannot bound a Lua function: previews do not run one there).
      if (lua.isLuaJIT) {
        assert.equal(value('vec'), '{x = 1, y = 2}');
        assert.equal(value('bad'), '{}');
        assert.equal(value('looping'), '{}');
      } else {
        assert.equal(value('vec'), '{x = 1, y = 2} -- Vec(1, 2)');
        assert.equal(value('bad'), '{} -- __tostring failed: previews.lua:30: tostring exploded');
        assert.match(
          value('looping'),
          /^\{\} -- __tostring failed: evaluation stopped: .*instructions/,
        );
      }
      assert.match(value('fn'), /^function <previews\.lua:11>$/);
      assert.equal(value('builtin'), 'function: builtin');
      assert.match(value('co'), new RegExp(`^thread: suspended \\(${ADDRESS}\\)$`));
      assert.match(value('dead'), new RegExp(`^thread: dead \\(${ADDRESS}\\)$`));
      assert.match(value('ud'), new RegExp(`^(FILE\\*|userdata): ${ADDRESS} -- file \\(`));
      if (lua.command === 'lua5.1' || lua.isLuaJIT) {
        assert.match(value('bare'), new RegExp(`^userdata: ${ADDRESS}$`));
      }
      await c.request('continue', {});
      const out = await finish(s);
      assert.match(out, /previews done\t1\t2\ttrue\thero/);
    });

    it('names children as Lua keys, sets fields by those names, pages by the 1-based index', async () => {
      const s = await startSession(lua, 'previews.lua', {
        settings: { pagingLimit: 100 },
        breakpoints: { 'previews.lua': [line(lineOf('previews.lua', 'stop'))] },
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      const frame = String(topOf(stop.stack).index);
      const c = s.ide.connection;
      const locals = await c.request('getVariable', { varRef: '10000', stackId: frame });
      const ref = (name: string) => String(locals.find((v) => v.name === name)?.variablesReference);
      const kids = await c.request('getVariable', { varRef: ref('keys'), stackId: 'NaN' });
      assert.deepEqual(
        kids.map((v) => [v.name, v.value, v.evaluateName]),
        [
          ['[1.5]', '4', 'keys[1.5]'],
          ['["a b"]', '1', 'keys["a b"]'],
          ['["end"]', '2', 'keys["end"]'],
          ['plain', '5', 'keys.plain'],
          ['[true]', '3', 'keys[true]'],
        ],
      );
      const page = await c.request('getVariable', {
        varRef: ref('list'),
        stackId: 'NaN',
        start: 100,
        count: 2,
      });
      assert.deepEqual(
        page.map((v) => [v.name, v.value]),
        [
          ['[101]', '101'],
          ['[102]', '102'],
        ],
      );
      const set = async (varRef: string, varName: string, newValue: string) => {
        const reply = await c.request('setVariable', { varRef, stackId: frame, varName, newValue });
        assert.equal(reply.success, true, `${varName}: ${reply.tip}`);
        return reply;
      };
      await set(ref('keys'), '["a b"]', '10');
      await set(ref('list'), '[2]', '20');
      // A string shown escaped is assigned as the string it stands for.
      const text = await set('10000', 'text', '"a\\nb\\t\\"q\\"\\\\"');
      assert.equal(text.value, '"a\\nb\\t\\"q\\"\\\\"');
      await c.request('continue', {});
      const out = await finish(s);
      assert.match(out, /previews done\t10\t20\ttrue\thero/);
    });

    it('shows every result of an expression, and nothing for a statement', async () => {
      const s = await startSession(lua, 'previews.lua', {
        breakpoints: { 'previews.lua': [line(lineOf('previews.lua', 'stop'))] },
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      const stackId = String(topOf(stop.stack).index);
      const c = s.ide.connection;
      const watch = async (varName: string): Promise<LuaVariable> =>
        (await c.request('getWatchedVariable', { varName, stackId }))[0];
      const repl = async (Expression: string): Promise<LuaVariable> =>
        (await c.request('runREPLExpression', { Expression, stackId }))[0];
      const two = await watch('util.helper(2, 3)');
      assert.deepEqual([two.value, two.type, two.childCount], ['5, 8', 'number, number', 2]);
      const items = await c.request('getVariable', {
        varRef: String(two.variablesReference),
        stackId: 'NaN',
      });
      assert.deepEqual(
        items.map((v) => [v.name, v.value]),
        [
          ['[1]', '5'],
          ['[2]', '8'],
        ],
      );
      assert.equal((await watch('hero.name, hero.x')).value, '"hero", 0');
      assert.equal((await repl('util.helper(1, 1)')).value, '2, 3');
      assert.equal((await repl('hero')).value, 'Entity {name = "hero", x = 0, y = 0}');
      const statement = await repl('nothing()');
      assert.deepEqual([statement.value, statement.isSuccess], ['', true]);
      const assignment = await repl('inside = 7');
      assert.equal(assignment.value, '');
      assert.equal((await repl('inside')).value, '7');
      assert.equal((await repl('nil')).value, 'nil');
      // The REPL shows more of a long string than a preview does.
      assert.equal((await repl('long')).value, `"${'x'.repeat(500)}"`);
      const failed = await repl('nosuch.field');
      assert.equal(failed.isSuccess, false);
      assert.match(failed.value, /^\(eval\):1: .*nosuch/);
      await c.request('continue', {});
      await finish(s);
    });
  });
}
