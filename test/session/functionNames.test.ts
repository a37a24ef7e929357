// Definitions read from Lua source (luaparse): every way a function gets its name, 5.4 attributes
// tolerated, and the frame-name rules of FunctionNames.frameName.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FunctionNames, definitionsOf } from '../../src/session/stop/functionNames';

const SOURCE = [
  'local M = {}', // 1
  'function M.helper(a) return a end', // 2
  'function Entity:update(dt) end', // 3
  'local function tick() end', // 4
  'function globalFn() end', // 5
  'Entity.new = function() end', // 6
  'local f = function() end', // 7
  'local handlers = { fn = function() end }', // 8
  'pcall(function() end)', // 9
  'local x <const> = 1', // 10
  'local t = { inner = { deep = function() end } }', // 11
  'function a.b.c:d() end', // 12
].join('\n');

describe('function definitions from Lua source', () => {
  it('names every definition form as written', () => {
    const byLine = new Map(definitionsOf(SOURCE).map((d) => [d.firstLine, `${d.kind} ${d.text}`]));
    assert.equal(byLine.get(2), 'field M.helper');
    assert.equal(byLine.get(3), 'method Entity:update');
    assert.equal(byLine.get(4), 'named tick');
    assert.equal(byLine.get(5), 'named globalFn');
    assert.equal(byLine.get(6), 'field Entity.new');
    assert.equal(byLine.get(7), 'named f');
    assert.equal(byLine.get(8), 'field handlers.fn');
    assert.equal(byLine.get(9), 'anonymous ');
    assert.equal(byLine.get(11), 'field t.inner.deep');
    assert.equal(byLine.get(12), 'method a.b.c:d');
  });

  it('frame names: the definition, else the module, else function <file:line>, else the call site', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lp-names-'));
    try {
      const file = path.join(dir, 'game.lua');
      fs.writeFileSync(file, SOURCE);
      const names = new FunctionNames();
      assert.equal(names.frameName(file, 3, undefined, 'update'), 'Entity:update');
      assert.equal(names.frameName(file, 2, 'util.helper', 'helper'), 'M.helper');
      assert.equal(names.frameName(file, 9, 'util.cb', undefined), 'util.cb');
      assert.equal(names.frameName(file, 9, undefined, undefined), 'function <game.lua:9>');
      assert.equal(names.frameName(path.join(dir, 'gone.lua'), 3, undefined, 'update'), 'update');
      assert.equal(
        names.frameName(path.join(dir, 'gone.lua'), 3, 'mod.update', 'update'),
        'mod.update',
      );
      // Edited: read again.
      fs.writeFileSync(file, '\n\nlocal function renamed() end');
      fs.utimesSync(file, new Date(), new Date(Date.now() + 5_000));
      assert.equal(names.frameName(file, 3, undefined, 'x'), 'renamed');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a source luaparse cannot read gives no names (the call site is kept)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lp-names-'));
    try {
      const file = path.join(dir, 'broken.lua');
      fs.writeFileSync(file, 'function f(\n');
      assert.equal(new FunctionNames().frameName(file, 1, undefined, 'f'), 'f');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
