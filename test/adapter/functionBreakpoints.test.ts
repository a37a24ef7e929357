// Function breakpoints through the out-of-process adapter (what VS Code shows): the DAP request's
// answer (unverified before the program connects, with the reason), breakpoint events as the
// runtime binds each name (verified, with the source and line), stops on entry that carry the
// breakpoint's id in hitBreakpointIds, a hit condition, and a name that never binds.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { luaInterpreters } from '../harness/interpreters';
import { fixture, markerLine as lineOf } from './dapHarness';
import { useDapTest } from './useDapTest';

const MAIN = fixture(path.join('fnbp', 'main.lua'));
const UTIL = fixture(path.join('fnbp', 'util.lua'));

for (const lua of luaInterpreters()) {
  describe(`function breakpoints through the adapter on ${lua.command}`, function () {
    this.timeout(30_000);
    const t = useDapTest();

    const latest = (id: number | undefined) =>
      t.events
        .filter((e): e is DebugProtocol.BreakpointEvent => e.event === 'breakpoint')
        .map((e) => e.body.breakpoint)
        .filter((bp) => bp.id === id)
        .at(-1);

    it('verifies names as their code loads and stops on entry with hitBreakpointIds', async () => {
      await t.launch(
        lua.command,
        MAIN,
        {},
        {
          functionBreakpoints: [
            { name: 'Entity:update', hitCondition: '>= 2' },
            { name: 'util.helper' },
            { name: 'nosuch.fn' },
            { name: 'Entity:update(', condition: 'x >' },
          ],
        },
      );
      const [update, helper, never, bad] = t.functionBreakpointResponse;
      assert.ok(update.id !== undefined && helper.id !== undefined && never.id !== undefined);
      assert.equal(new Set([update.id, helper.id, never.id, bad.id]).size, 4);
      assert.equal(update.verified, false);
      assert.match(String(bad.message), /^The condition `x >` is not a valid Lua/);

      const first = await t.stoppedAt('breakpoint', MAIN, lineOf(MAIN, 'update'));
      assert.deepEqual(first.event.hitBreakpointIds, [update.id]);
      const scopes = await t.dc.scopesRequest({ frameId: first.top.id });
      const locals = await t.dc.variablesRequest({
        variablesReference: scopes.body.scopes[0].variablesReference,
      });
      assert.equal(locals.body.variables.find((v) => v.name === 'dt')?.value, '2');
      assert.equal(latest(update.id)?.verified, true);
      assert.equal(latest(update.id)?.line, lineOf(MAIN, 'update'));
      assert.equal(latest(update.id)?.source?.path, MAIN);
      assert.equal(latest(helper.id)?.verified, false);
      assert.match(
        String(latest(helper.id)?.message),
        /not found yet: no loaded function is named util\.helper/,
      );
      await t.dc.continueRequest({ threadId: first.event.threadId ?? 1 });

      const third = await t.stoppedAt('breakpoint', MAIN, lineOf(MAIN, 'update'));
      await t.dc.continueRequest({ threadId: third.event.threadId ?? 1 });
      // `util` is the module's name too: bound once it is required.
      const inHelper = await t.stoppedAt('breakpoint', UTIL, lineOf(UTIL, 'helper'));
      assert.deepEqual(inHelper.event.hitBreakpointIds, [helper.id]);
      assert.equal(latest(helper.id)?.verified, true);
      assert.equal(latest(helper.id)?.source?.path, UTIL);
      assert.equal(latest(never.id)?.verified, false);
      await t.dc.continueRequest({ threadId: inHelper.event.threadId ?? 1 });
      await t.terminated;
      assert.match(t.output, /result\t12/);
    });
  });
}
