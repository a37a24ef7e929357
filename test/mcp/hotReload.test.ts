/**
 * `hot_reload_file` as an agent meets it, with the SDK's own client against headless
 * luapanda-mcp on real Lua. The reload game (test/scenarios/hotReload, in a temp workspace the test
 * changes) is reloaded while stopped at a breakpoint and while running, its output changing from
 * the next call on with its state kept; the agent loop on a planted bug (stop, read a variable,
 * fix the file, reload, continue: the output is right, in the same session); and a refusal of
 * the user is honoured.
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { ApprovalAction } from '../../src/mcp/tools/context';
import { luaInterpreters } from '../harness/interpreters';
import { HeadlessFixture, ToolCallResult, callTool, stopDataOf } from './headlessFixture';
import { scenario } from '../harness/scenario';
import { scenarioWorkspace } from './luaWorkspace';

const HOT_RELOAD = scenario('hotReload');

interface Entry {
  name: string;
  line?: number;
  reason?: string;
}
interface Stop {
  thread_id: number;
  top_frame_variables: { variables: { name: string; value: string }[] } | null;
}

/** scoring.lua with points ten times the frame. */
async function tenfold(file: string): Promise<void> {
  const text = await fs.readFile(file, 'utf8');
  assert.ok(text.includes('return frame * FACTOR'));
  await fs.writeFile(file, text.replace('return frame * FACTOR', 'return frame * 10'));
}

/** prices.lua with the planted bug fixed: the percentage divided by 100. */
async function fixPrices(file: string): Promise<void> {
  const text = await fs.readFile(file, 'utf8');
  assert.ok(text.includes('price * percent -- @bug'));
  await fs.writeFile(file, text.replace('price * percent -- @bug', 'price * percent / 100'));
}

function frameLines(lines: string[]): { frame: number; points: number; total: number }[] {
  return lines.flatMap((text) => {
    const m = /^frame (\d+) points (\d+) total (\d+)$/.exec(text);
    return m ? [{ frame: Number(m[1]), points: Number(m[2]), total: Number(m[3]) }] : [];
  });
}

for (const lua of luaInterpreters()) {
  describe(`MCP hot_reload_file with ${lua.command}`, function () {
    this.timeout(60_000);
    let fixture: HeadlessFixture | undefined;
    let client: Client;
    /** What the approver was asked, and what it answers. */
    let asked: [ApprovalAction, string][];
    let allow: boolean;
    const call = (name: string, args: Record<string, unknown> = {}): Promise<ToolCallResult> =>
      callTool(client, name, args);
    const file = (name: string) => path.join(fixture?.workspace ?? '', name);

    beforeEach(async () => {
      asked = [];
      allow = true;
      fixture = await HeadlessFixture.start(await scenarioWorkspace(lua, HOT_RELOAD), {
        approve: async (action, detail) => {
          asked.push([action, detail]);
          return allow;
        },
      });
      client = await fixture.connect();
    });
    afterEach(async () => {
      await fixture?.close();
      fixture = undefined;
    });

    /** Every line the program printed so far, paging get_output to the end. */
    async function printed(): Promise<string[]> {
      const lines: string[] = [];
      let cursor = 0;
      for (;;) {
        const page = await call('get_output', { cursor, max_lines: 1000 });
        for (const group of page.groups as { category: string; lines: { text: string }[] }[]) {
          if (group.category === 'stdout') lines.push(...group.lines.map((l) => l.text));
        }
        cursor = page.next_cursor as number;
        if (page.more !== true) return lines;
      }
    }

    async function printedUntil(pattern: RegExp): Promise<string[]> {
      const deadline = Date.now() + 15_000;
      for (;;) {
        const lines = await printed();
        if (lines.some((l) => pattern.test(l))) return lines;
        if (Date.now() > deadline) throw new Error(`no ${pattern} in: ${lines.join('\n')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }

    it('reloads a module while stopped at a breakpoint; the next call runs the new code, state kept', async () => {
      const line = HOT_RELOAD.line('game.lua', 'call');
      const set = await call('set_breakpoint', {
        file_path: 'game.lua',
        line_number: line,
        condition: 'frame == 3',
      });
      assert.equal(set.status, 'success');
      // The configuration runs 3000 frames; the test ends it once it has seen enough.
      const stop = stopDataOf<Stop>(await call('start_debugging', { configuration_name: 'game' }));
      await tenfold(file('scoring.lua'));
      const reloaded = await call('hot_reload_file', { file_path: 'scoring.lua' });
      assert.equal(reloaded.status, 'success', reloaded.message);
      assert.ok(
        (reloaded.replaced as Entry[]).some((e) => /points$/.test(e.name)),
        JSON.stringify(reloaded),
      );
      assert.deepEqual([reloaded.not_found, reloaded.not_replaced], [[], []]);
      assert.equal(typeof reloaded.time_ms, 'number');
      assert.match(String(reloaded.message), /^Hot reload scoring\.lua: replaced .*points/);
      assert.deepEqual(asked, [['reload', file('scoring.lua')]], 'the reload was approved first');
      await call('remove_breakpoint', { clear_all: true });
      const running = await call('continue_debugging', {
        thread_id: stop.thread_id,
        timeout_seconds: 0.5,
      });
      assert.equal(running.status, 'timeout', 'the game runs on');
      const lines = frameLines(await printedUntil(/^frame 5 /));
      assert.deepEqual(lines.slice(0, 5), [
        { frame: 1, points: 1, total: 1 },
        { frame: 2, points: 2, total: 3 },
        { frame: 3, points: 30, total: 33 },
        { frame: 4, points: 40, total: 73 },
        { frame: 5, points: 50, total: 123 },
      ]);
    });

    it('reloads a module while the game runs, without pausing it', async () => {
      const started = await call('start_debugging', {
        configuration_name: 'game',
        timeout_seconds: 0.5,
      });
      assert.equal(started.status, 'timeout', started.message);
      // Past LuaJIT's hot-loop threshold: the loop runs compiled by now (reached through tick()).
      const seen = frameLines(await printedUntil(/^frame 80 /)).length;
      await tenfold(file('scoring.lua'));
      const reloaded = await call('hot_reload_file', { file_path: file('scoring.lua') });
      assert.equal(reloaded.status, 'success', reloaded.message);
      const state = await call('get_debug_state');
      assert.equal(state.state, 'Running', 'the reload did not stop the game');
      const withNew = await printedUntil(/^frame (\d+) points (?:\1)0 /);
      const switched = frameLines(withNew).find((l) => l.points === l.frame * 10)?.frame ?? 0;
      const lines = frameLines(await printedUntil(new RegExp(`^frame ${switched + 2} `)));
      const first = lines.findIndex((l) => l.points === l.frame * 10);
      assert.ok(first >= seen, 'every frame printed before the reload ran the old code');
      lines.forEach((l, i) => {
        assert.equal(l.points, i < first ? l.frame : l.frame * 10, `frame ${l.frame}`);
        assert.equal(l.total, (i > 0 ? lines[i - 1].total : 0) + l.points, `total at ${l.frame}`);
      });
    });

    it('the agent loop: stop at the bug, read a variable, fix the file, reload, continue — right output, same session', async () => {
      const bugLine = HOT_RELOAD.line('prices.lua', 'bug');
      await call('set_breakpoint', { file_path: 'prices.lua', line_number: bugLine });
      const started = await call('start_debugging', { configuration_name: 'shop' });
      const stop = stopDataOf<Stop & { session_id: string }>(started);
      const locals = new Map(stop.top_frame_variables?.variables.map((v) => [v.name, v.value]));
      assert.deepEqual([locals.get('price'), locals.get('percent')], ['100', '20']);
      const off = await call('evaluate_expression', { expression: 'price * percent' });
      assert.equal(off.result, '2000', 'the agent sees the discount is not a percentage');

      await fixPrices(file('prices.lua'));
      const reloaded = await call('hot_reload_file', {
        file_path: 'prices.lua',
        session_id: stop.session_id,
      });
      assert.equal(reloaded.status, 'success', reloaded.message);
      assert.ok((reloaded.replaced as Entry[]).some((e) => /discounted$/.test(e.name)));
      // Stopped inside it: this call finishes in the old code, the next ones run the fix.
      assert.ok(
        (reloaded.active as Entry[]).some((e) => /discounted$/.test(e.name)),
        JSON.stringify(reloaded),
      );
      assert.match(String(reloaded.message), /finish in the old code/);

      await call('remove_breakpoint', { clear_all: true });
      const end = await call('continue_debugging', { thread_id: stop.thread_id });
      assert.equal(end.status, 'completed', end.message);
      const output = await call('get_output');
      assert.equal(output.session_id, stop.session_id, 'one session printed it all: no restart');
      assert.deepEqual(await printed(), [
        'round 1 sword costs -1900',
        'round 2 sword costs 80',
        'round 3 sword costs 80',
        'round 4 sword costs 80',
        'round 5 sword costs 80',
      ]);
    });

    it('honours the user refusing the reload: nothing changes', async () => {
      allow = false;
      await call('set_breakpoint', {
        file_path: 'prices.lua',
        line_number: HOT_RELOAD.line('prices.lua', 'bug'),
      });
      const stop = stopDataOf<Stop>(await call('start_debugging', { configuration_name: 'shop' }));
      await fixPrices(file('prices.lua'));
      const refused = await call('hot_reload_file', { file_path: 'prices.lua' });
      assert.equal(refused.status, 'error');
      assert.equal(refused.code, 'not-allowed');
      assert.deepEqual(asked, [['reload', file('prices.lua')]]);
      await call('remove_breakpoint', { clear_all: true });
      const end = await call('continue_debugging', { thread_id: stop.thread_id });
      assert.equal(end.status, 'completed', end.message);
      const lines = await printed();
      assert.equal(lines.length, 5);
      assert.ok(
        lines.every((l) => l.endsWith('costs -1900')),
        lines.join('\n'),
      );
    });

    it('says what is wrong with the file or the session, without asking', async () => {
      const none = await call('hot_reload_file', { file_path: 'scoring.lua' });
      assert.equal(none.status, 'error');
      assert.equal(none.code, 'no-session');
      const missing = await call('hot_reload_file', { file_path: 'nosuch.lua' });
      assert.equal(missing.status, 'error');
      assert.equal(missing.code, 'file-not-found');
      assert.deepEqual(asked, []);
    });
  });
}
