// The line analysis against real interpreters: for each fixture of test/fixtures/breakpointLines,
// activelines.lua prints debug.getinfo(f, "L") of every function under lua5.1–5.4 and LuaJIT,
// and src/session/lines/codeLines.ts must give the very same lines, function by function — so where a
// breakpoint binds (breakpointLines.ts) is what the runtime will find. Then the binding rules
// and their messages, on small sources.
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { SourceLines } from '../../src/session/lines/breakpointLines';
import { LuaDialect, dialectOf } from '../../src/session/lines/luaDialect';
import { luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT } from '../harness/luaProcess';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'breakpointLines');
const HELPER = path.join(FIXTURES, 'activelines.lua');

interface RealFunction {
  readonly key: string;
  readonly lines: number[];
}

/** What the interpreter says: "first last: lines" per function that ran. */
function activelines(command: string, file: string): RealFunction[] {
  const run = spawnSync(command, [HELPER, file], { encoding: 'utf8', timeout: 20_000 });
  assert.equal(run.status, 0, `${command} ${path.basename(file)}: ${run.stderr}`);
  return run.stdout
    .trim()
    .split('\n')
    .map((line) => {
      const match = /^(\d+) (\d+): (.*)$/.exec(line);
      assert.ok(match, `unexpected helper output: ${line}`);
      return {
        key: match[1] === '0' ? 'main' : `${match[1]}-${match[2]}`,
        lines: match[3] === '' ? [] : match[3].split(',').map(Number),
      };
    });
}

/** The fixture's `-- versions:` line (every dialect when it has none). */
function versionsOf(text: string): LuaDialect[] | undefined {
  const match = /^-- versions: (.*)$/m.exec(text);
  return match ? (match[1].split(/,\s*/) as LuaDialect[]) : undefined;
}

describe('session/breakpointLines', () => {
  const fixtures = fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.lua') && f !== 'activelines.lua');

  describe('agrees with activelines of real interpreters', () => {
    for (const lua of luaInterpreters()) {
      const dialect = dialectOf(lua.version);
      for (const fixture of fixtures) {
        const file = path.join(FIXTURES, fixture);
        const text = fs.readFileSync(file, 'utf8');
        const versions = versionsOf(text);
        if (!dialect || (versions && !versions.includes(dialect))) continue;
        it(`${lua.command}: ${fixture}`, () => {
          const analysed = new SourceLines(text).functions(dialect);
          assert.ok(typeof analysed !== 'string', `does not parse: ${String(analysed)}`);
          const ours = new Map(
            analysed.map((f) => [
              f.first === 0 ? 'main' : `${f.first}-${f.last}`,
              [...f.lines].sort((a, b) => a - b),
            ]),
          );
          const real = activelines(lua.command, file);
          // Every function of the fixture runs, so both sides list the same ones.
          assert.deepEqual(real.map((f) => f.key).sort(), [...ours.keys()].sort());
          for (const f of real) {
            assert.deepEqual(ours.get(f.key), f.lines, `lines of function ${f.key}`);
          }
        });
      }
    }
  });

  describe('binding', () => {
    const source = [
      'local x = 1', // 1
      '', // 2
      '-- a comment', // 3
      'local function f(n)', // 4
      '  if n then', // 5
      '    x = n', // 6
      '  end', // 7
      '  return x', // 8
      'end', // 9
      'f(2)', // 10
      '-- trailing', // 11
    ].join('\n');
    const lines = new SourceLines(source);

    it('keeps a line with code', () => {
      assert.deepEqual(lines.bind(6, '5.4'), {
        kind: 'code',
        line: 6,
        target: { first: 4, last: 9 },
      });
    });

    it('moves a blank line, a comment or a bare `end` to the next line with code', () => {
      // The main chunk makes `f` on the line of its `end`: its next code after line 2.
      const blank = lines.bind(2, '5.4');
      assert.ok(blank.kind === 'code');
      assert.equal(blank.line, 9);
      assert.deepEqual(blank.target, { first: 0, last: 0 });
      assert.match(blank.moved ?? '', /^Moved from line 2 \(blank\) to line 9/);
      const comment = lines.bind(3, '5.1');
      assert.ok(comment.kind === 'code');
      assert.equal(comment.line, 9);
      assert.match(comment.moved ?? '', /^Moved from line 3 \(a comment\) to line 9 \(`end`\)/);
      const end = lines.bind(7, 'luajit');
      assert.ok(end.kind === 'code');
      assert.equal(end.line, 8);
      assert.match(end.moved ?? '', /Moved from line 7 \(`end`\) to line 8 \(`return x`\)/);
    });

    it('binds a function header in its body', () => {
      const header = lines.bind(4, '5.3');
      assert.ok(header.kind === 'code');
      assert.equal(header.line, 5);
      assert.deepEqual(header.target, { first: 4, last: 9 });
    });

    it('says why a line cannot bind: past the end, or no code after it in its function', () => {
      assert.deepEqual(lines.bind(200, '5.4'), {
        kind: 'none',
        message: 'Line 200 is past the end of the file (11 lines).',
      });
      const trailing = lines.bind(11, '5.4');
      assert.ok(trailing.kind === 'none');
      assert.match(trailing.message, /Line 11 \(a comment\) has no code.*main chunk/);
      // The `end` of a function that ends with a return: no code in LuaJIT, a final return
      // that never runs in PUC Lua.
      for (const dialect of ['luajit', '5.1', '5.4'] as const) {
        const end = lines.bind(9, dialect);
        assert.ok(end.kind === 'none');
        assert.match(end.message, /^Line 9 \(`end`\) is never reached: the function at lines 4–9/);
      }
    });

    it('while the dialect is unknown, a line is code when it is code in any dialect', () => {
      const loop = new SourceLines('local t = {}\nfor i = 1, 2 do\n  t[i] = i\nend\nprint(t)\n');
      // 5.1 jumps back from line 3, 5.2+ from the `for` line: none has code on line 4.
      const end = loop.bind(4);
      assert.ok(end.kind === 'code' && end.line === 5);
      const comment = lines.bind(3);
      assert.ok(comment.kind === 'code' && comment.line === 9);
      const generic = new SourceLines('for k in pairs({}) do\n  print(k)\nend\nprint(1)\n');
      // The `end` of a generic for has code in 5.4 only: unknown → it stays.
      assert.deepEqual(generic.bind(3), { kind: 'code', line: 3, target: { first: 0, last: 0 } });
      assert.equal(generic.bind(3, '5.3').kind, 'code');
      const moved = generic.bind(3, '5.3');
      assert.ok(moved.kind === 'code' && moved.line === 4);
    });

    it('falls back to the line as it is when the file does not parse', () => {
      const broken = new SourceLines('local x = = 1\n');
      const result = broken.bind(1, '5.4');
      assert.equal(result.kind, 'unchecked');
      assert.match(result.kind === 'unchecked' ? result.message : '', /could not be parsed/);
      assert.equal(broken.bind(5, '5.4').kind, 'none');
    });

    it('reads 5.4 attributes, CRLF lines and a shebang line', () => {
      const text = '#!/usr/bin/lua\r\nlocal K <const> = 1\r\nlocal r <close> = nil\r\nprint(K)\r\n';
      const attrs = new SourceLines(text);
      assert.equal(attrs.lineCount, 4);
      const constant = attrs.bind(2, '5.4');
      assert.ok(constant.kind === 'code' && constant.line === 3);
      assert.equal(attrs.bind(4, '5.4').kind, 'code');
    });
  });
});
