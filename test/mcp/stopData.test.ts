/**
 * stop_event_data built for the next decision, end to end with the MCP SDK client against real
 * Lua under every interpreter: the top frame's upvalues as their own scope (without `_ENV`), the
 * source lines around the stop, exception stops with the message, the dead coroutine's frames and
 * a one-line locals preview of the first frames, and a default stop result under 8 KB (the sizes
 * of a typical and a large stop are printed).
 */
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HeadlessFixture, ToolCallResult, callTool, stopDataOf } from './headlessFixture';
import { lineOf, luaWorkspace } from './luaWorkspace';
import { luaInterpreters } from '../harness/interpreters';
import { scenario } from '../harness/scenario';

const FOLDER = scenario('variables').dir;
const MAX_STOP_RESULT_BYTES = 8 * 1024;

interface Variable {
  name: string;
  value: string;
  truncated?: boolean;
}
interface Scope {
  scope_name: string;
  variables: Variable[];
  truncated: boolean;
}
interface StopData {
  reason: string;
  text: string | null;
  thread_id: number;
  line: number | null;
  call_stack: { function_name: string; line_number: number; locals_preview?: string }[];
  call_stack_truncated?: boolean;
  top_frame_variables: (Scope & { upvalues?: Scope }) | null;
  source_lines?: { line: number; text: string; current?: boolean }[];
}

const stopOf = (result: ToolCallResult) => stopDataOf<StopData>(result);

const sizeOf = (result: ToolCallResult) => Buffer.byteLength(JSON.stringify(result));

for (const lua of luaInterpreters()) {
  describe(`MCP stop data with ${lua.command}`, function () {
    this.timeout(60_000);
    let fixture: HeadlessFixture;
    let client: Client;

    beforeEach(async () => {
      fixture = await HeadlessFixture.start(await luaWorkspace(lua, FOLDER));
      client = await fixture.connect();
    });
    afterEach(() => fixture.close());

    async function stopAt(program: string, marker: string): Promise<ToolCallResult> {
      const line = lineOf(FOLDER, `${program}.lua`, marker);
      const set = await callTool(client, 'set_breakpoint', {
        file_path: `${program}.lua`,
        line_number: line,
      });
      assert.equal(set.status, 'success', JSON.stringify(set));
      return callTool(client, 'start_debugging', { configuration_name: program });
    }

    it("carries the top frame's upvalues (without _ENV) and the source lines around the stop", async () => {
      const stop = stopOf(await stopAt('upvalues', 'stop here'));
      const top = stop.top_frame_variables;
      assert.ok(top, 'top frame variables');
      assert.deepEqual(
        top.variables.map((v) => v.name),
        ['target', 'amount', 'dealt'],
      );
      assert.equal(top.upvalues?.scope_name, 'Upvalues');
      const upvalues = Object.fromEntries(top.upvalues.variables.map((v) => [v.name, v.value]));
      assert.equal(upvalues.scale, '0', 'the culprit, an upvalue, is in the stop data');
      assert.equal(upvalues.label, '"damage"');
      assert.ok(!('_ENV' in upvalues), '_ENV is not shown');

      const line = lineOf(FOLDER, 'upvalues.lua', 'stop here');
      const source = stop.source_lines ?? [];
      assert.deepEqual(
        source.map((l) => l.line),
        [line - 2, line - 1, line, line + 1, line + 2],
      );
      assert.deepEqual(
        source.filter((l) => l.current === true).map((l) => l.line),
        [line],
      );
      assert.match(source[2].text, /return label \.\. ": " \.\. tostring\(dealt\) -- stop here/);
      assert.equal(source[0].text, '  local dealt = amount * scale');
    });

    it("an exception stop carries the message, the dead coroutine's frames and the first frames' locals", async () => {
      // Only the "uncaught" filter: the stop is the assert's, raised by the code that resumed
      // the coroutine, yet the coroutine's own frames come first.
      const stop = stopOf(
        await callTool(client, 'start_debugging', { configuration_name: 'coroutine_error' }),
      );
      assert.equal(stop.reason, 'exception');
      assert.match(stop.text ?? '', /coroutine_error\.lua:\d+: attempt to index .*fields/);
      assert.deepEqual(
        stop.call_stack.map((f) => f.function_name),
        ['parse', 'worker', 'run', 'main chunk'],
      );
      assert.equal(
        stop.call_stack[0].line_number,
        lineOf(FOLDER, 'coroutine_error.lua', 'fails: the record'),
      );
      assert.equal(
        stop.call_stack[2].line_number,
        lineOf(FOLDER, 'coroutine_error.lua', 'resume here'),
      );
      const previews = stop.call_stack.map((f) => f.locals_preview);
      // LuaJIT keeps no locals of a coroutine that died (its top frame has none to show).
      if (!lua.isLuaJIT) assert.match(previews[0] ?? '', /record = .+, fields = nil/);
      assert.match(previews[1] ?? '', /count = 1/);
      assert.match(previews[2] ?? '', /pending = 1/);
      assert.equal(previews[3], undefined, 'three frames at most');
      const end = await callTool(client, 'continue_debugging', { thread_id: stop.thread_id });
      assert.equal(end.status, 'completed', JSON.stringify(end));
    });

    it('a default stop result stays under 8 KB, typical and large', async () => {
      const typical = await stopAt('upvalues', 'stop here');
      stopOf(typical);
      await callTool(client, 'stop_debugging');
      await callTool(client, 'remove_breakpoint', { clear_all: true });
      const large = await stopAt('large', 'stop here');
      const data = stopOf(large);
      console.log(
        `      stop result (${lua.command}): typical ${sizeOf(typical)} B, large ${sizeOf(large)} B`,
      );
      assert.ok(sizeOf(typical) < MAX_STOP_RESULT_BYTES);
      assert.ok(sizeOf(large) < MAX_STOP_RESULT_BYTES, `${sizeOf(large)} bytes`);
      // What was cut is said, and a little of everything stays.
      assert.equal(data.call_stack_truncated, true);
      assert.ok(data.call_stack.length >= 5);
      assert.equal(data.top_frame_variables?.truncated, true);
      assert.ok((data.top_frame_variables?.variables.length ?? 0) >= 8);
      assert.ok((data.top_frame_variables?.upvalues?.variables.length ?? 0) >= 4);
      assert.ok(data.top_frame_variables?.variables.some((v) => v.truncated === true));
      assert.equal(data.source_lines?.length, 5);
    });
  });
}
