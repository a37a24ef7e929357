// Definition sites of function breakpoint names read from the sources (functionSites.ts): every
// definition form the call stack names, `A:b` as `A.b`, several files, names that are no function
// names; and the lines each site carries checked against what the real interpreters say
// (`linedefined`, `lastlinedefined`, the first active line), definitions spread over lines too.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { luaInterpreters } from '../harness/interpreters';
import { dialectOf } from '../../src/session/lines/luaDialect';
import { FunctionSites } from '../../src/session/breakpoints/functionSites';

const SOURCE = [
  'local Entity = {}', // 1
  'function Entity:update(dt)', // 2
  '  return dt', // 3
  'end', // 4
  'local function helper', // 5
  '  (n)', // 6
  '  return n', // 7
  'end', // 8
  'Entity.reset = function', // 9
  '  (self) end', // 10
  'local handlers = { fire = function() return 1 end }', // 11
  'function Entity.', // 12
  '  new() return {} end', // 13
  'return { Entity.update, helper, Entity.reset, handlers.fire, Entity.new }', // 14
].join('\n');
const NAMES = ['Entity.update', 'helper', 'Entity:reset', 'handlers.fire', 'Entity : new'];

describe('function breakpoint definition sites', () => {
  let dir: string;
  let main: string;
  let other: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lp-sites-'));
    main = path.join(dir, 'main.lua');
    other = path.join(dir, 'other.lua');
    fs.writeFileSync(main, SOURCE);
    fs.writeFileSync(other, 'local Entity = {}\n\nfunction Entity:update() end\nreturn Entity\n');
  });

  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('finds each definition form, in every file that defines the name', async () => {
    const found = await new FunctionSites().find(
      [...NAMES, 'Entity', 'no.such', 'not a name!', 'Entity:update'],
      [main, other],
      '5.4',
    );
    assert.deepEqual(
      NAMES.map((n) => found.get(n)?.map((s) => [path.basename(s.path), s.first, s.last])),
      [
        [
          ['main.lua', 2, 4],
          ['other.lua', 3, 3],
        ],
        [['main.lua', 6, 8]],
        [['main.lua', 10, 10]],
        [['main.lua', 11, 11]],
        [['main.lua', 12, 13]],
      ],
    );
    assert.deepEqual(found.get('Entity'), []);
    assert.deepEqual(found.get('no.such'), []);
    assert.deepEqual(found.get('not a name!'), []);
    assert.deepEqual(
      found.get('Entity:update')?.map((s) => [path.basename(s.path), s.first, s.last, s.line]),
      [
        ['main.lua', 2, 4, 3],
        ['other.lua', 3, 3, 3],
      ],
    );
  });

  for (const lua of luaInterpreters()) {
    it(`gives the lines ${lua.command} gives the functions`, async () => {
      const found = await new FunctionSites().find(NAMES, [main], dialectOf(lua.version));
      const probe = path.join(dir, 'probe.lua');
      fs.writeFileSync(
        probe,
        [
          'for _, f in ipairs(dofile(arg[1])) do',
          '  local s, active = debug.getinfo(f, "S"), debug.getinfo(f, "L").activelines',
          '  local first',
          '  for line in pairs(active) do if not first or line < first then first = line end end',
          '  print(s.linedefined, s.lastlinedefined, first)',
          'end',
        ].join('\n'),
      );
      const out = execFileSync(lua.command, [probe, main], { encoding: 'utf8' });
      const real = out
        .trim()
        .split('\n')
        .map((l) => l.split('\t').map(Number));
      assert.deepEqual(
        NAMES.map((n) => {
          const site = found.get(n)?.[0];
          return site ? [site.first, site.last, site.line] : [];
        }),
        real,
      );
    });
  }
});
