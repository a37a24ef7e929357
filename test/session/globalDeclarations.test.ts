// Lua 5.5's `global` declarations rewritten for luaparse (src/session/lines/globalDeclarations.ts):
// declarations become what luaparse reads with lines and offsets kept, older code that uses
// `global` as a name stays as it is, and the rewritten sources name and bind as 5.5 compiles them
// (test/session/breakpointLines.test.ts checks globals55.lua against a real lua5.5).
import * as assert from 'node:assert/strict';
import { SourceLines } from '../../src/session/lines/breakpointLines';
import { rewriteGlobalDeclarations } from '../../src/session/lines/globalDeclarations';
import { definitionsOf } from '../../src/session/stop/functionNames';

describe('session/globalDeclarations', () => {
  const cases: Array<[string, string]> = [
    ['global function f() end', '       function f() end'],
    ['global x', '        '],
    ['global x, y <const>\nz = 1', '                   \nz = 1'],
    ['global x, y = 1, 2', '       x, y = 1, 2'],
    ['global <const> K = 3', '               K = 3'],
    ['global *', '        '],
    ['global <const> *', '                '],
    ['do global * end', 'do          end'],
  ];
  for (const [source, expected] of cases) {
    it(`rewrites ${JSON.stringify(source)}`, () => {
      const rewritten = rewriteGlobalDeclarations(source);
      assert.equal(rewritten, expected);
      assert.equal(rewritten.length, source.length);
    });
  }

  const unchanged = [
    'global = 1',
    'local global = {}',
    'global.x = 1',
    'print(global * 2)',
    'local y = global < 3',
    'global(1)',
    'return global',
    't.global = 1',
    'local s = "global x"',
    '-- global x',
  ];
  for (const source of unchanged) {
    it(`keeps ${JSON.stringify(source)} (global as a name)`, () => {
      assert.equal(rewriteGlobalDeclarations(source), source);
    });
  }

  it('names a `global function` like a function statement, on its lines', () => {
    const source = ['global print', 'global function tick(dt)', '  print(dt)', 'end'].join('\n');
    assert.deepEqual(definitionsOf(source), [
      { kind: 'named', text: 'tick', firstLine: 2, lastLine: 4 },
    ]);
  });

  it('binds breakpoints in a 5.5 source: a declaration without values has no code', () => {
    const lines = new SourceLines(
      [
        'global print, counter',
        'global counter = 0',
        'global function bump()',
        '  counter = counter + 1',
        'end',
        'bump()',
      ].join('\n'),
    );
    assert.equal(lines.bind(1, '5.5').kind, 'code');
    const moved = lines.bind(1, '5.5');
    assert.ok(moved.kind === 'code' && moved.line === 2 && moved.moved, JSON.stringify(moved));
    assert.deepEqual(lines.bind(4, '5.5'), {
      kind: 'code',
      line: 4,
      target: { first: 3, last: 5 },
    });
  });
});
