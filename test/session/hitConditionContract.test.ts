/**
 * One hit-condition grammar on both sides: every case of test/fixtures/contract/hitConditions.json
 * runs against the IDE's parser (src/session/breakpoints/hitCondition.ts) and, through each real interpreter,
 * against the runtime's (lua/luapanda/bprules.lua) — the same verdict, the same canonical
 * spelling, and the runtime stops on the hits the case names.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseHitCondition } from '../../src/session/breakpoints/hitCondition';
import { luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT, spawnLua } from '../harness/luaProcess';

interface HitConditionCase {
  readonly text: string;
  /** The canonical spelling; null: refused when the breakpoint is set. */
  readonly wire: string | null;
  /** The hits among 1..8 on which the breakpoint stops. */
  readonly fires?: readonly number[];
  readonly note?: string;
}

const DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'contract');
const DATA = path.join(DIR, 'hitConditions.json');
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
      const proc = spawnLua({ ...lua, native: false }, path.join(DIR, 'hit_conditions.lua'), {
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
