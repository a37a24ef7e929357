// The scenario folders and their loader: every folder has a launch.json that parses, markers that
// are unique in each program, and golden overrides only where they differ from golden.txt.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LuaInterpreter } from './interpreters';
import { SCENARIOS_DIR, markersOf, omit, scenario } from './scenario';

const NAMES = fs
  .readdirSync(SCENARIOS_DIR, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

describe('test scenarios', () => {
  it('finds markers after a comment start, several on a line, and refuses one used twice', () => {
    const markers = markersOf(
      'local a = 1 -- @first\nprint("x@y") -- @second @third\nlocal b = "@notOne"\n',
      'example',
    );
    assert.deepEqual(
      [...markers],
      [
        ['first', 1],
        ['second', 2],
        ['third', 2],
      ],
    );
    assert.throws(() => markersOf('-- @twice\n-- @twice\n', 'example'), /@twice twice in example/);
  });

  it('fills in the folder and the interpreter, and says which configurations there are', () => {
    const recursion = scenario('recursion');
    const lua: LuaInterpreter = { command: 'lua5.3', version: 'Lua 5.3', isLuaJIT: false };
    const launch = recursion.configuration('Launch main.lua', lua);
    assert.equal(launch.program, recursion.file('main.lua'));
    assert.equal(launch.cwd, recursion.dir);
    assert.equal(launch.luaPath, 'lua5.3');
    const attach = recursion.configuration('Attach to attach.lua', lua);
    assert.equal(attach.luaPath, undefined, 'an attach configuration names no interpreter');
    assert.deepEqual(Object.keys(omit(attach, 'connectionPort')).sort(), [
      'cwd',
      'name',
      'request',
      'type',
    ]);
    assert.throws(() => recursion.configuration('nope'), /has: Launch main\.lua, Attach/);
    assert.throws(() => recursion.line('main.lua', 'nope'), /No @nope in/);
  });

  for (const name of NAMES) {
    it(`${name}: launch.json parses and every program's markers are unique`, () => {
      const sc = scenario(name);
      assert.ok(sc.configurations().length > 0, 'at least one configuration');
      const programs = sc.files().filter((f) => f.endsWith('.lua'));
      assert.ok(programs.length > 0, 'at least one Lua program');
      for (const file of programs) sc.markers(file);
    });

    it(`${name}: a golden override differs from golden.txt`, () => {
      const dir = path.join(SCENARIOS_DIR, name);
      const overrides = fs.readdirSync(dir).filter((f) => /^golden\..+\.txt$/.test(f));
      if (overrides.length === 0) return;
      const common = path.join(dir, 'golden.txt');
      assert.ok(fs.existsSync(common), 'overrides without golden.txt');
      for (const file of overrides) {
        assert.notEqual(
          fs.readFileSync(path.join(dir, file), 'utf8'),
          fs.readFileSync(common, 'utf8'),
          `${file} equals golden.txt: remove it`,
        );
      }
    });
  }
});
