/**
 * The bundle's line map: every module's text sits in dist/lua/LuaPanda.lua where the map says,
 * line for line, and an error inside the runtime names the module and line of lua/luapanda/*.lua
 * (`luapanda/transport.lua:67`), not a line of the generated bundle.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT, spawnLua } from '../harness/luaProcess';
import { BUNDLE_DIR, FIXTURES, fixture } from './helpers';

const LUA_DIR = path.join(REPO_ROOT, 'lua');

/** The lines of a source file as the bundle holds them (no shebang line text, no trailing space). */
function sourceLines(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8').replace(/^#![^\n]*/, '');
  return text.replace(/\s+$/, '').split('\n');
}

/** The map's triples: first bundle line, last bundle line, file under lua/. */
function bundleMap(bundle: string[]): { first: number; last: number; file: string }[] {
  const mapLine = bundle.find((l) => l.startsWith('__lp_loaded["luapanda.bundlemap"] = {'));
  assert.ok(mapLine, 'the bundle holds a line map');
  const values = JSON.parse(
    `[${mapLine.slice(mapLine.indexOf('{') + 1, mapLine.lastIndexOf('}'))}]`,
  ) as (number | string)[];
  const triples = [];
  for (let i = 0; i < values.length; i += 3) {
    triples.push({
      first: values[i] as number,
      last: values[i + 1] as number,
      file: values[i + 2] as string,
    });
  }
  return triples;
}

describe('runtime line map', () => {
  it('places every module and the entry where the map says, line for line', () => {
    const bundle = fs.readFileSync(path.join(BUNDLE_DIR, 'LuaPanda.lua'), 'utf8').split('\n');
    const map = bundleMap(bundle);
    const modules = fs
      .readdirSync(path.join(LUA_DIR, 'luapanda'))
      .filter((f) => f.endsWith('.lua'));
    assert.deepEqual(
      map.map((m) => m.file).sort(),
      [...modules.map((f) => `luapanda/${f}`), 'lua/LuaPanda.lua'].sort(),
    );
    for (const { first, last, file } of map) {
      const source = sourceLines(path.join(LUA_DIR, file.replace(/^lua\//, '')));
      assert.equal(last - first + 1, source.length, `${file}: line count`);
      assert.deepEqual(bundle.slice(first - 1, last), source, `${file}: its lines in the bundle`);
    }
  });

  for (const lua of luaInterpreters()) {
    it(`an error inside the runtime names its module and line (${lua.command})`, async () => {
      const proc = spawnLua(lua, fixture('broken_socket.lua'), {
        luaPath: [BUNDLE_DIR],
        cwd: FIXTURES,
      });
      const exit = await proc.waitForExit(15_000);
      assert.equal(exit.code, 0, proc.describe());
      assert.match(proc.stdout, /start\tfalse\n/);
      assert.match(proc.stdout, /done\t1000\n/, 'the program goes on');
      const where = /LuaPanda: start\(\) failed: luapanda\/transport\.lua:(\d+): .*settimeout/.exec(
        proc.stderr,
      );
      assert.ok(where, `stderr names the module: ${proc.stderr}`);
      const line = sourceLines(path.join(LUA_DIR, 'luapanda', 'transport.lua'))[
        Number(where[1]) - 1
      ];
      assert.match(line, /sock:settimeout/, 'the line named is the one that failed');
      assert.doesNotMatch(proc.stderr, /LuaPanda\.lua:\d+/, 'no line of the bundle');
    });
  }

  for (const lua of luaInterpreters()) {
    it(`a module compiled on first use keeps the bundle's source and lines (${lua.command})`, async () => {
      const bundle = fs.readFileSync(path.join(BUNDLE_DIR, 'LuaPanda.lua'), 'utf8').split('\n');
      const hotreload = bundleMap(bundle).find((m) => m.file === 'luapanda/hotreload.lua');
      assert.ok(hotreload, 'the map places hotreload.lua');
      assert.match(
        bundle[hotreload.first - 2],
        /^__lp_sources\["luapanda\.hotreload"\] = \[=*\[$/,
        'hotreload.lua is held as text until first used',
      );
      const proc = spawnLua(lua, fixture('lazy_modules.lua'), {
        luaPath: [BUNDLE_DIR],
        cwd: FIXTURES,
      });
      const exit = await proc.waitForExit(15_000);
      assert.equal(exit.code, 0, proc.describe());
      assert.match(proc.stdout, /^report\tsuccess\t2$/m, proc.describe());
      const called = [...proc.stdout.matchAll(/^fn\t(yes|no)\t(\d+)$/gm)].map((m) => ({
        sameSource: m[1] === 'yes',
        line: Number(m[2]),
      }));
      assert.ok(
        called.every((f) => f.sameSource),
        `every runtime function carries the bundle's source: ${proc.stdout}`,
      );
      const inHotreload = called.filter(
        (f) => f.line >= hotreload.first && f.line <= hotreload.last,
      );
      assert.ok(inHotreload.length >= 3, `hot reload's own functions ran: ${proc.stdout}`);
      for (const { line } of inHotreload) {
        assert.match(bundle[line - 1], /function/, `bundle line ${line} defines a function`);
      }
    });
  }
});
