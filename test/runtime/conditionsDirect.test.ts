/**
 * Breakpoint conditions (lua/luapanda/conditions.lua) evaluated directly on every interpreter: an
 * expression compiled to read only the locals it names still sees the innermost of a shadowed
 * name, a field where a local has the field's name, upvalues, globals and varargs, and the scope
 * of the line it is evaluated at (test/fixtures/runtime/conditions_direct.lua).
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT, spawnLua } from '../harness/luaProcess';

const SCRIPT = path.join(REPO_ROOT, 'test', 'fixtures', 'runtime', 'conditions_direct.lua');

const EXPECTED = [
  'local\t42',
  'field not local\tfield x',
  'field named like a local\tfield b',
  'global\tglobal x',
  'upvalue\tupvalue',
  'concat\t2142',
  'concat spaced\t21-42',
  'method\tobj',
  'number exponent\ttrue',
  'varargs\t2:va1', // PUC Lua 5.1 cannot read varargs: 0:nil
  'string with a name\tb42',
  'index by local\tfield x0',
  'shadowed\tinner b',
  'after the block\t42',
  'loop 1\t101',
  'loop 2\t202',
  'same line, other scope\t42',
  'calls the program\tupvalue',
  'other function\tother b',
];

for (const lua of luaInterpreters()) {
  describe(`runtime breakpoint conditions, evaluated directly (${lua.command})`, () => {
    it('read the locals they name, in the scope of their line, and nothing else of the frame', async () => {
      const proc = spawnLua({ ...lua, native: false }, SCRIPT, {
        luaPath: [path.join(REPO_ROOT, 'lua')],
      });
      const exit = await proc.waitForExit(10_000);
      assert.equal(exit.code, 0, proc.stderr);
      const lines = proc.stdout.trimEnd().split('\n');
      const invalid = lines.find((l) => l.startsWith('not valid\t'));
      assert.match(invalid ?? '', /^not valid\terror: .*unexpected symbol/);
      const puc51 = lua.version === 'Lua 5.1' && !lua.isLuaJIT;
      const expected = EXPECTED.map((l) =>
        puc51 && l.startsWith('varargs\t') ? 'varargs\t0:nil' : l,
      );
      assert.deepEqual(
        lines.filter((l) => !l.startsWith('not valid\t')),
        expected,
      );
    });
  });
}
