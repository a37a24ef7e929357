/**
 * collect_values, with the SDK's client against headless luapanda-mcp on real Lua (scenario
 * collect): a value that changes over hits, a condition, a hit limit, an expression that errors,
 * a user's breakpoint on the same line that still stops, the timeout with too few hits, a function
 * by name, the errors (no session, a bad line, a malformed expression), and the program's output
 * unchanged by the collect.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HeadlessFixture, ToolCallResult, callTool, stopDataOf } from './headlessFixture';
import { scenarioWorkspace } from './luaWorkspace';
import { luaInterpreters } from '../harness/interpreters';
import { scenario } from '../harness/scenario';
import type { ExpressionSummary } from '../../src/mcp/collectTable';

type Summary = ExpressionSummary;

interface Collected extends ToolCallResult {
  ended: string;
  columns: string[];
  hits: (number | string)[][];
  summary: Summary[];
}

const sc = scenario('collect');
const CONFIG = 'Launch main.lua';

for (const lua of luaInterpreters()) {
  describe(`MCP collect_values with ${lua.command}`, function () {
    this.timeout(60_000);
    let fixture: HeadlessFixture;
    let client: Client;
    const call = (name: string, args: Record<string, unknown> = {}): Promise<ToolCallResult> =>
      callTool(client, name, args);
    const collect = async (args: Record<string, unknown>): Promise<Collected> => {
      const result = await call('collect_values', args);
      assert.equal(result.status, 'success', JSON.stringify(result));
      return result as Collected;
    };

    /** Starts main.lua stopped at @ready (the breakpoint there removed again). */
    async function startAtReady(): Promise<void> {
      fixture = await HeadlessFixture.start(await scenarioWorkspace(lua, sc));
      client = await fixture.connect();
      const ready = await call('set_breakpoint', {
        file_path: 'main.lua',
        line_number: sc.line('main.lua', 'ready'),
      });
      stopDataOf(await call('start_debugging', { configuration_name: CONFIG }));
      await call('remove_breakpoint', {
        breakpoint_id: (ready.breakpoint as { id: number }).id,
      });
    }

    /** Polls get_debug_state (bounded) until the program is stopped. */
    async function waitForStop(): Promise<ToolCallResult> {
      for (let i = 0; i < 300; i++) {
        const s = await call('get_debug_state');
        if (s.state === 'Stopped') return s;
        await new Promise((r) => setTimeout(r, 100));
      }
      assert.fail('the program never stopped');
    }

    afterEach(() => fixture?.close());

    it('collects a changing value without stopping; a user breakpoint there still stops', async () => {
      await startAtReady();
      const damage = sc.line('main.lua', 'damage');
      // The user's own breakpoint on the collected line, for a later frame.
      const user = await call('set_breakpoint', {
        file_path: 'main.lua',
        line_number: damage,
        condition: 'frame == 20',
      });
      const result = await collect({
        file_path: 'main.lua',
        line_number: damage,
        expressions: ['player.hp', 'amount', 'player.nope.x'],
        condition: 'frame > 2',
        hit_limit: 5,
      });
      assert.equal(result.ended, 'hit-limit');
      assert.deepEqual(result.columns, ['hit', 'player.hp', 'amount', 'player.nope.x', 'frames']);
      assert.deepEqual(
        result.hits.map((h) => h.slice(0, 3)),
        [
          [1, '97', '3'],
          [2, '94', '0'],
          [3, '94', '1'],
          [4, '93', '2'],
          [5, '91', '3'],
        ],
      );
      for (const h of result.hits) {
        assert.match(String(h[3]), /^error: .*nope/);
        assert.match(
          String(h[4]),
          new RegExp(`^damage main\\.lua:${damage} < main chunk main\\.lua:\\d+`),
        );
      }
      const [hp, amount, broken] = result.summary;
      assert.deepEqual(hp, {
        expression: 'player.hp',
        first: '97',
        last: '91',
        min: 91,
        max: 97,
        first_change: 2,
        changes: 3,
      });
      assert.deepEqual([amount.min, amount.max, amount.changes], [0, 3, 4]);
      assert.equal(broken.errors, 5);

      // The collect never stopped the program; the user's breakpoint did, at its own frame.
      const state = await waitForStop();
      const stop = state.stop_event_data as { thread_id: number; hit_breakpoint_ids: number[] };
      assert.deepEqual(stop.hit_breakpoint_ids, [(user.breakpoint as { id: number }).id]);
      const frame = await call('evaluate_expression', { expression: 'frame' });
      assert.equal(frame.result, '20', JSON.stringify(frame));
      await call('remove_breakpoint', { clear_all: true });
      const done = await call('continue_debugging', {
        thread_id: stop.thread_id,
        timeout_seconds: 30,
      });
      assert.equal(done.status, 'completed', JSON.stringify(done));
      const output = await call('get_output', { max_lines: 40 });
      const lines = JSON.stringify(output);
      for (const text of ['start', 'hp 40', 'done']) assert.ok(lines.includes(text), lines);
      assert.ok(!/collect|LogPoint/i.test(lines), lines);
    });

    it('ends at the timeout with too few hits, collects by function name, and refuses bad calls', async () => {
      fixture = await HeadlessFixture.start(await scenarioWorkspace(lua, sc));
      client = await fixture.connect();
      const none = await call('collect_values', {
        file_path: 'main.lua',
        line_number: sc.line('main.lua', 'damage'),
        expressions: ['player.hp'],
      });
      assert.equal(none.status, 'error');
      assert.equal(none.code, 'no-session');
      await fixture.close();

      await startAtReady();
      const badLine = await call('collect_values', {
        file_path: 'main.lua',
        line_number: 9999,
        expressions: ['player.hp'],
      });
      assert.deepEqual([badLine.status, badLine.code], ['error', 'invalid-arguments']);
      const malformed = await call('collect_values', {
        file_path: 'main.lua',
        line_number: sc.line('main.lua', 'damage'),
        expressions: ['player.hp', 'player.'],
      });
      assert.deepEqual([malformed.status, malformed.code], ['error', 'invalid-arguments']);
      assert.match(String(malformed.message), /player\./);

      // @rare is reached once; the idle phase runs on for seconds after it.
      const rare = await collect({
        file_path: path.join(fixture.workspace, 'main.lua'),
        line_number: sc.line('main.lua', 'rare'),
        expressions: ['tick'],
        hit_limit: 5,
        timeout_seconds: 1,
      });
      assert.equal(rare.ended, 'timeout');
      assert.deepEqual(
        rare.hits.map((h) => h.slice(0, 2)),
        [[1, '2']],
      );

      const idle = await collect({ function_name: 'idle', expressions: ['tick'], hit_limit: 3 });
      assert.equal(idle.ended, 'hit-limit');
      const ticks = idle.hits.map((h) => Number(h[1]));
      assert.ok(
        ticks[0] > 2 && ticks[1] === ticks[0] + 1 && ticks[2] === ticks[1] + 1,
        String(ticks),
      );
      assert.equal(idle.summary[0].first_change, 2);
      await call('stop_debugging');
    });
  });
}
