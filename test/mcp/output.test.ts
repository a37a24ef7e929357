/**
 * get_output, end to end with the MCP SDK client against real Lua under every interpreter: lines
 * come as runs of one category, each line `{cursor, text}`, with the session and timestamps said
 * once; bytes per line stay small (bounded here, not timed); and in launch mode what the program
 * printed and what a logpoint logged come in the order they happened.
 */
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HeadlessFixture, ToolCallResult, callTool } from './headlessFixture';
import { lineOf, luaWorkspace } from './luaWorkspace';
import { luaInterpreters } from '../harness/interpreters';
import { scenario } from '../harness/scenario';

const FOLDER = scenario('output').dir;

interface Group {
  category: string;
  session_id?: string;
  lines: { cursor: number; text: string }[];
}

const groupsOf = (result: ToolCallResult) => result.groups as Group[];
const linesOf = (result: ToolCallResult) =>
  groupsOf(result).flatMap((g) => g.lines.map((l) => ({ category: g.category, ...l })));
const bytesOf = (result: ToolCallResult) => Buffer.byteLength(JSON.stringify(result));

for (const lua of luaInterpreters()) {
  describe(`MCP get_output with ${lua.command}`, function () {
    this.timeout(60_000);
    let fixture: HeadlessFixture;
    let client: Client;

    before(async () => {
      fixture = await HeadlessFixture.start(await luaWorkspace(lua, FOLDER));
      client = await fixture.connect();
      await callTool(client, 'set_breakpoint', {
        file_path: 'chatty.lua',
        line_number: lineOf(FOLDER, 'chatty.lua', 'logpoint here'),
        log_message: 'step {i} squared {square}',
      });
      const end = await callTool(client, 'start_debugging', { configuration_name: 'chatty' });
      assert.equal(end.status, 'completed', JSON.stringify(end));
    });
    after(() => fixture.close());

    it('interleaves print output and logpoint lines in the order they happened (launch mode)', async () => {
      const page = await callTool(client, 'get_output', { max_lines: 40 });
      const lines = linesOf(page);
      const expected = [];
      for (let i = 1; i <= 20; i++) {
        expected.push({ category: 'stdout', text: `print ${i}` });
        expected.push({ category: 'logpoint', text: `step ${i} squared ${i * i}` });
      }
      assert.deepEqual(
        lines.map(({ category, text }) => ({ category, text })),
        expected,
      );
      const cursors = lines.map((l) => l.cursor);
      assert.deepEqual(
        cursors,
        [...cursors].sort((a, b) => a - b),
        'cursors rise',
      );
    });

    it('returns runs of {cursor, text} with the session and timestamps once, small per line', async () => {
      const first = await callTool(client, 'get_output', { max_lines: 40 });
      const page = await callTool(client, 'get_output', {
        cursor: first.next_cursor as number,
        max_lines: 200,
      });
      assert.equal(typeof page.session_id, 'string');
      assert.match(String(page.first_timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.match(String(page.last_timestamp), /Z$/);
      assert.equal(page.more, true);
      const groups = groupsOf(page);
      assert.equal(groups.length, 1, 'one run of printed lines');
      assert.equal(groups[0].category, 'stdout');
      assert.equal(groups[0].session_id, undefined, 'said once, at the top');
      assert.deepEqual(Object.keys(groups[0].lines[0]).sort(), ['cursor', 'text']);
      assert.equal(groups[0].lines.length, 200);
      assert.equal(groups[0].lines[199].text, 'tick 200');
      const textBytes = groups[0].lines.reduce((n, l) => n + Buffer.byteLength(l.text), 0);
      const overhead = (bytesOf(page) - textBytes) / 200;
      console.log(
        `      get_output (${lua.command}): 200 short lines in ${bytesOf(page)} B, ${overhead.toFixed(1)} B/line beyond the text`,
      );
      assert.ok(overhead <= 30, `${overhead} bytes of overhead per line`);
      assert.ok(bytesOf(page) <= 7 * 1024, `${bytesOf(page)} bytes for 200 short lines`);
    });

    it('logpoint lines cost little more than their text, even alternating with prints', async () => {
      const page = await callTool(client, 'get_output', { max_lines: 40 });
      const logpoints = linesOf(page).filter((l) => l.category === 'logpoint');
      assert.equal(logpoints.length, 20);
      assert.ok(!logpoints.some((l) => l.text.includes('[LogPoint Output]')), 'no prefix');
      const textBytes = linesOf(page).reduce((n, l) => n + Buffer.byteLength(l.text), 0);
      const overhead = (bytesOf(page) - textBytes) / 40;
      assert.ok(overhead <= 70, `${overhead} bytes of overhead per line`);
    });
  });
}
