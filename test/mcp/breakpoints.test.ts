/**
 * Breakpoints tell the truth to an agent, with the SDK's client against headless luapanda-mcp on
 * real Lua: before any session, set_breakpoint says which breakpoints can never work (a condition
 * that is not Lua, a line past the end) and where one on a blank line will bind; the session
 * binds it there and stops on it; a condition that fails at run time is said once, in the next
 * result's `warnings`, and in the breakpoint's message.
 */
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HeadlessFixture, ToolCallResult, callTool } from './headlessFixture';
import { lineOf, luaWorkspace } from './luaWorkspace';
import { luaInterpreters } from '../harness/interpreters';

const FOLDER = 'mcp-breakpoints';
const FILE = 'game.lua';

interface BreakpointView {
  id: number;
  verified: boolean;
  line: number;
  requested_line?: number;
  message: string | null;
}

for (const lua of luaInterpreters()) {
  describe(`MCP breakpoints tell the truth with ${lua.command}`, function () {
    this.timeout(60_000);
    let fixture: HeadlessFixture;
    let client: Client;
    const call = (name: string, args: Record<string, unknown> = {}): Promise<ToolCallResult> =>
      callTool(client, name, args);
    const line = (marker: string) => lineOf(FOLDER, FILE, marker);

    beforeEach(async () => {
      fixture = await HeadlessFixture.start(await luaWorkspace(lua, FOLDER));
      client = await fixture.connect();
    });

    afterEach(() => fixture.close());

    async function set(args: Record<string, unknown>): Promise<BreakpointView> {
      const result = await call('set_breakpoint', { file_path: FILE, ...args });
      assert.equal(result.status, 'success', result.message);
      return result.breakpoint as BreakpointView;
    }

    it('says before any session which breakpoints can never work and where one will bind', async () => {
      const badSyntax = await set({ line_number: line('@bad-syntax'), condition: 'i >' });
      assert.equal(badSyntax.verified, false);
      assert.match(String(badSyntax.message), /^The condition `i >` is not a valid Lua expression/);

      const pastEnd = await set({ line_number: 200 });
      assert.equal(pastEnd.verified, false);
      assert.match(String(pastEnd.message), /^Line 200 is past the end of the file \(14 lines\)/);

      const blank = line('@after-blank') - 1;
      const moved = await set({ line_number: blank });
      assert.deepEqual([moved.line, moved.requested_line], [line('@after-blank'), blank]);
      assert.match(
        String(moved.message),
        /^Not bound yet: .* Moved from line 7 \(blank\) to line 8 /,
      );

      const started = await call('start_debugging', { configuration_name: 'game' });
      assert.equal(started.status, 'stopped', JSON.stringify(started));
      const stop = started.stop_event_data as { line: number; hit_breakpoint_ids: number[] };
      assert.equal(stop.line, line('@after-blank'));
      assert.deepEqual(stop.hit_breakpoint_ids, [moved.id]);
      // The breakpoint that can never work was said when the session took it.
      const warnings = (started.warnings ?? []) as string[];
      assert.ok(
        warnings.some((w) => /`i >` is not a valid Lua expression/.test(w)),
        JSON.stringify(warnings),
      );

      const listed = (await call('get_breakpoints')).breakpoints as BreakpointView[];
      const byId = new Map(listed.map((b) => [b.id, b]));
      assert.equal(byId.get(moved.id)?.verified, true);
      assert.equal(byId.get(moved.id)?.line, line('@after-blank'));
      assert.equal(byId.get(badSyntax.id)?.verified, false);
      assert.equal(byId.get(pastEnd.id)?.verified, false);
    });

    it('says once that a condition failed at run time, and keeps it in the breakpoint', async () => {
      const failing = await set({
        line_number: line('@failing-condition'),
        condition: 'eco.nosuch.x > 1',
      });
      assert.equal(failing.verified, false);
      const after = await set({ line_number: line('@after-blank') });

      const started = await call('start_debugging', { configuration_name: 'game' });
      assert.equal(started.status, 'stopped', JSON.stringify(started));
      const stop = started.stop_event_data as { thread_id: number; hit_breakpoint_ids: number[] };
      assert.deepEqual(stop.hit_breakpoint_ids, [after.id]);
      const warnings = (started.warnings ?? []) as string[];
      assert.equal(warnings.length, 1, JSON.stringify(warnings));
      assert.match(
        warnings[0],
        new RegExp(
          '^Breakpoint at game\\.lua:6: its condition `eco\\.nosuch\\.x > 1` ' +
            'failed: .*attempt to index .*; it counts as false\\.$',
        ),
      );

      // The condition fails again on the next call: said once, not again.
      const again = await call('continue_debugging', { thread_id: stop.thread_id });
      assert.equal(again.status, 'stopped');
      assert.equal(again.warnings, undefined, JSON.stringify(again.warnings));

      const listed = (await call('get_breakpoints')).breakpoints as BreakpointView[];
      const shown = listed.find((b) => b.id === failing.id);
      assert.equal(shown?.verified, true);
      assert.match(String(shown?.message), /^Its condition failed: .*; it counts as false\.$/);

      await call('remove_breakpoint', { clear_all: true });
      const done = await call('continue_debugging', { thread_id: stop.thread_id });
      assert.equal(done.status, 'completed', JSON.stringify(done));
    });
  });
}
