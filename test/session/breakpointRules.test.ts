/**
 * Breakpoint rules on the IDE side: conditions, hit conditions and logpoint messages checked when
 * a breakpoint is set; and one hit-condition grammar on both sides: every case of
 * test/scenarios/breakpointRules/hitConditions.json runs against the IDE's parser
 * (src/session/breakpoints/hitCondition.ts) and, through each real interpreter, against the
 * runtime's (lua/luapanda/bprules.lua) — the same verdict, the same canonical spelling, and the
 * runtime stops on the hits the case names.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { checkBreakpoint } from '../../src/session/breakpoints/breakpointChecks';
import { parseHitCondition } from '../../src/session/breakpoints/hitCondition';
import { luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT, spawnLua } from '../harness/luaProcess';
import { scenario } from '../harness/scenario';

describe('session/breakpointChecks', () => {
  it('accepts valid conditions, hit conditions and log messages', () => {
    assert.equal(checkBreakpoint({ condition: 'hp < 10 and not dead' }), undefined);
    assert.equal(checkBreakpoint({ condition: 'x // 2 == 1' }), undefined);
    assert.equal(checkBreakpoint({ condition: 'id == 1LL' }), undefined); // LuaJIT literal
    assert.equal(checkBreakpoint({ condition: '   ' }), undefined);
    assert.equal(checkBreakpoint({ hitCondition: '>= 3' }), undefined);
    assert.equal(checkBreakpoint({ logMessage: 'hp={hp} {{literal}} {t.name}' }), undefined);
  });

  it("gives the parser's message for a condition that is not an expression", () => {
    assert.equal(
      checkBreakpoint({ condition: 'hp <' }),
      "The condition `hp <` is not a valid Lua expression: <expression> expected near ')'",
    );
    assert.match(checkBreakpoint({ condition: 'a, b' }) ?? '', /not a valid Lua expression/);
    assert.match(checkBreakpoint({ condition: 'x = 1' }) ?? '', /not a valid Lua expression/);
  });

  it('checks hit conditions with the grammar of hitCondition.ts', () => {
    assert.match(checkBreakpoint({ hitCondition: 'often' }) ?? '', /is not understood/);
    assert.match(checkBreakpoint({ hitCondition: '% 0' }) ?? '', /greater than 0/);
  });

  it('checks the {expressions} of a log message, not its condition', () => {
    assert.match(
      checkBreakpoint({ logMessage: 'value {x +}' }) ?? '',
      /^The log message's `\{x \+\}` is not a valid Lua expression/,
    );
    assert.match(checkBreakpoint({ logMessage: 'open {x' }) ?? '', /unclosed '\{'/);
    assert.equal(checkBreakpoint({ logMessage: 'ok', condition: 'not valid (' }), undefined);
    assert.match(checkBreakpoint({ logMessage: 'ok', hitCondition: 'x' }) ?? '', /not understood/);
  });

  it('parses hit conditions', () => {
    assert.deepEqual(parseHitCondition('5'), { ok: true, wire: '>= 5' });
    assert.deepEqual(parseHitCondition(' > 5 '), { ok: true, wire: '> 5' });
    assert.deepEqual(parseHitCondition('==3'), { ok: true, wire: '== 3' });
    assert.deepEqual(parseHitCondition('%2'), { ok: true, wire: '% 2' });
    assert.equal(parseHitCondition('% 0').ok, false);
    assert.equal(parseHitCondition('x').ok, false);
  });
});

interface HitConditionCase {
  readonly text: string;
  /** The canonical spelling; null: refused when the breakpoint is set. */
  readonly wire: string | null;
  /** The hits among 1..8 on which the breakpoint stops. */
  readonly fires?: readonly number[];
  readonly note?: string;
}

const RULES = scenario('breakpointRules');
const DATA = RULES.file('hitConditions.json');
const CASES = (JSON.parse(fs.readFileSync(DATA, 'utf8')) as { cases: HitConditionCase[] }).cases;

function label(c: HitConditionCase): string {
  return JSON.stringify(c.text) + (c.note ? ` (${c.note})` : '');
}

describe('hit-condition contract: the IDE side (src/session/breakpoints/hitCondition.ts)', () => {
  for (const c of CASES) {
    it(`${label(c)} → ${c.wire ?? 'refused'}`, () => {
      const parsed = parseHitCondition(c.text);
      if (c.wire === null) {
        assert.equal(parsed.ok, false);
        return;
      }
      assert.deepEqual(parsed, { ok: true, wire: c.wire });
      // The canonical spelling reads as itself.
      assert.deepEqual(parseHitCondition(c.wire), { ok: true, wire: c.wire });
    });
  }
});

for (const lua of luaInterpreters()) {
  describe(`hit-condition contract: the runtime (lua/luapanda/bprules.lua, ${lua.command})`, () => {
    it('reads every case as the IDE does and stops on the hits it names', async () => {
      const proc = spawnLua({ ...lua, native: false }, RULES.file('hit_conditions.lua'), {
        args: [DATA],
        luaPath: [path.join(REPO_ROOT, 'lua')],
      });
      const exit = await proc.waitForExit(10_000);
      assert.equal(exit.code, 0, proc.stderr);
      const lines = proc.stdout.trimEnd().split('\n');
      const expected = CASES.map((c, i) =>
        c.wire === null ? `${i + 1}\trefused` : `${i + 1}\t${c.wire}\t${(c.fires ?? []).join(',')}`,
      );
      assert.deepEqual(lines, expected);
    });
  });
}
