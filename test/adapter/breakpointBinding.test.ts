// Breakpoints tell the truth through the out-of-process adapter (what VS Code shows), on every
// interpreter: lines without code move to the next line with code, lines that can never be
// reached or lie past the end are unverified with the reason, a condition that is not Lua is
// unverified with the parser's message, a file not loaded yet is "Not loaded yet" until its code
// runs — then a breakpoint event verifies it — and a condition that fails at run time is said
// once, in the console and in the breakpoint's message.
import * as assert from 'node:assert/strict';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { luaInterpreters } from '../harness/interpreters';
import { scenario } from '../harness/scenario';
import { markerLine as lineOf } from './dapHarness';
import { useDapTest } from './useDapTest';

const MAIN = scenario('breakpointBinding').file('main.lua');
const LATE = scenario('breakpointBinding').file('late.lua');

for (const lua of luaInterpreters()) {
  describe(`breakpoint binding through the adapter on ${lua.command}`, function () {
    this.timeout(30_000);
    const t = useDapTest();

    /** Every state of adapter breakpoint `id` that breakpoint events told, in order. */
    function states(id: number | undefined): DebugProtocol.Breakpoint[] {
      return t.events
        .filter((e): e is DebugProtocol.BreakpointEvent => e.event === 'breakpoint')
        .map((e) => e.body.breakpoint)
        .filter((bp) => bp.id === id);
    }
    const latest = (id: number | undefined) => states(id).at(-1);

    it('moves, refuses and verifies breakpoints as the loaded code says', async () => {
      const comment = lineOf(LATE, 'comment');
      const blank = lineOf(LATE, 'code') + 1;
      await t.launch(
        lua.command,
        MAIN,
        {},
        {
          breakpoints: {
            [MAIN]: [{ line: lineOf(MAIN, 'before') }],
            [LATE]: [
              { line: lineOf(LATE, 'twice'), condition: 'x >' },
              { line: comment },
              { line: blank },
              { line: lineOf(LATE, 'end') },
              { line: 200 },
            ],
          },
        },
      );
      const [badCondition, moved, movedToReturn, deadEnd, pastEnd] = t.breakpointResponses[LATE];
      assert.equal(badCondition.verified, false);
      assert.match(String(badCondition.message), /^The condition `x >` is not a valid Lua/);
      assert.equal(moved.line, lineOf(LATE, 'code'));
      assert.equal(moved.verified, false);
      assert.match(String(moved.message), / Moved from line 5 \(a comment\) to line 6 /);
      assert.equal(movedToReturn.line, lineOf(LATE, 'return'));
      assert.equal(deadEnd.verified, false);
      assert.match(String(deadEnd.message), /^Line 9 \(`end -- @end`\) is never reached/);
      assert.equal(pastEnd.verified, false);
      assert.match(String(pastEnd.message), /^Line 200 is past the end of the file \(11 lines\)/);

      // late.lua is not loaded while main.lua stops before requiring it.
      const first = await t.stoppedAt('breakpoint', MAIN, lineOf(MAIN, 'before'));
      assert.equal(latest(moved.id)?.verified, false);
      assert.match(String(latest(moved.id)?.message), /^Not loaded yet: .* Moved from line 5 /);
      await t.dc.continueRequest({ threadId: first.event.threadId ?? 1 });

      // Its code ran: the breakpoints that bind are verified, the others stay refused.
      await t.stoppedAt('breakpoint', LATE, lineOf(LATE, 'code'));
      assert.equal(latest(moved.id)?.verified, true);
      assert.equal(latest(moved.id)?.line, lineOf(LATE, 'code'));
      assert.equal(latest(movedToReturn.id)?.verified, true);
      assert.equal(latest(badCondition.id)?.verified ?? false, false);
      assert.equal(latest(pastEnd.id)?.verified ?? false, false);
      const stop = await t.dc.continueRequest({ threadId: first.event.threadId ?? 1 });
      assert.ok(stop.success);
      await t.stoppedAt('breakpoint', LATE, lineOf(LATE, 'return'));
      await t.dc.continueRequest({ threadId: first.event.threadId ?? 1 });
      await t.terminated;
      assert.match(t.output, /result 9/);
    });

    it('says once that a condition failed at run time, in the console and the breakpoint', async () => {
      const condition = 'late.nosuch.x > 1';
      await t.launch(
        lua.command,
        MAIN,
        {},
        { breakpoints: { [LATE]: [{ line: lineOf(LATE, 'code'), condition }] } },
      );
      const [bp] = t.breakpointResponses[LATE];
      await t.terminated;
      assert.match(t.output, /result 9/);
      const said = t.output.split(`(${condition}) failed`).length - 1;
      assert.equal(said, 1, t.output);
      // Shown on the breakpoint while the program ran (at the end every breakpoint is unbound).
      const failed = states(bp.id).filter((s) => /^Its condition failed: /.test(s.message ?? ''));
      assert.equal(failed.length, 1, JSON.stringify(states(bp.id)));
      assert.equal(failed[0].verified, true);
      assert.match(String(failed[0].message), /attempt to index .*; it counts as false\.$/);
      const warnings = t.events.filter((e) => e.event === 'luapandaWarning');
      assert.equal(warnings.length, 1, JSON.stringify(warnings));
      assert.match(
        String((warnings[0].body as { text: string }).text),
        /^Breakpoint at late\.lua:6: its condition `late\.nosuch\.x > 1` failed: /,
      );
    });
  });
}
