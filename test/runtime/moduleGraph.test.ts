/**
 * The runtime's modules as a graph, read from lua/ (no interpreter needed): no module requires
 * itself through others (a cycle loops in the bundle's loader and fails unbundled); the session's
 * face (session.lua) is required by the public entry only, so the other modules follow the session
 * through events.lua and the parts they need instead of reaching into it; and every module is in
 * lua/LuaPanda.lua's list of the runtime's own sources, so that unbundled too no breakpoint or step
 * stops in the runtime's code.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../harness/luaProcess';

const MODULE_DIR = path.join(REPO_ROOT, 'lua', 'luapanda');
const ENTRY = path.join(REPO_ROOT, 'lua', 'LuaPanda.lua');
const REQUIRE = /require\s*\(?\s*["']luapanda\.([A-Za-z0-9_]+)["']/g;

/**
 * Modules a module requires when it loads: the requires at the start of a line. A require inside
 * a function (indented) runs at its first use, when every module has loaded.
 */
function loadTimeRequires(source: string): string[] {
  return source
    .split('\n')
    .filter((line) => /^\S/.test(line) && !line.startsWith('--'))
    .flatMap((line) => [...line.matchAll(REQUIRE)].map((m) => m[1]));
}

function modules(): Map<string, string> {
  const all = new Map<string, string>();
  for (const file of fs.readdirSync(MODULE_DIR).sort()) {
    if (file.endsWith('.lua'))
      all.set(file.slice(0, -4), fs.readFileSync(path.join(MODULE_DIR, file), 'utf8'));
  }
  return all;
}

describe('runtime/moduleGraph', () => {
  it('no module requires itself through others when it loads', () => {
    const all = modules();
    const edges = new Map([...all].map(([name, source]) => [name, loadTimeRequires(source)]));
    const done = new Set<string>();
    const visit = (name: string, trail: string[]): void => {
      if (trail.includes(name)) assert.fail(`a require cycle: ${[...trail, name].join(' → ')}`);
      if (done.has(name)) return;
      for (const next of edges.get(name) ?? []) visit(next, [...trail, name]);
      done.add(name);
    };
    for (const name of all.keys()) visit(name, []);
  });

  it('only the public entry requires session.lua', () => {
    for (const [name, source] of modules()) {
      const required = [...source.matchAll(REQUIRE)].map((m) => m[1]);
      assert.ok(!required.includes('session'), `${name}.lua requires the session`);
    }
    assert.match(fs.readFileSync(ENTRY, 'utf8'), /require\("luapanda\.session"\)/);
  });

  it("every module is in LuaPanda.lua's list of the runtime's own sources", () => {
    const entry = fs.readFileSync(ENTRY, 'utf8');
    const list = entry.slice(
      entry.indexOf('for _, m in ipairs({'),
      entry.indexOf('registerOwn(m)'),
    );
    const named = new Set(
      [...list.matchAll(/require\("luapanda\.([A-Za-z0-9_]+)"\)|\b([a-z]+)\b/g)].map(
        (m) => m[1] ?? m[2],
      ),
    );
    const missing = [...modules().keys()].filter(
      // contract.lua holds data only (no function to register).
      (name) => !named.has(name) && name !== 'contract',
    );
    assert.deepEqual(missing, [], 'modules missing from the list');
  });
});
