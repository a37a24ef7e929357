/**
 * The error autopsy and the coroutine list, end to end with the MCP SDK client against headless
 * luapanda-mcp on real Lua under every interpreter (scenario `autopsy`): an uncaught error a
 * library raises three calls deep into the user's code (raising frame, first user frame, the
 * user frames' locals and source lines), an error a pcall catches (the catch line), and
 * get_debug_state's coroutines in several states.
 */
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HeadlessFixture, ToolCallResult, callTool, stopDataOf } from './headlessFixture';
import { scenarioWorkspace } from './luaWorkspace';
import { luaInterpreters } from '../harness/interpreters';
import { scenario } from '../harness/scenario';
import { STOP_BUDGET_BYTES } from '../../src/mcp/stop/stopBudget';

interface Place {
  frame_id?: number;
  function_name?: string;
  file_path?: string;
  line: number;
}
interface UserFrame extends Place {
  locals?: { name: string; value: string }[];
  source_lines?: { line: number; text: string; current?: boolean }[];
}
interface Stop {
  reason: string;
  thread_id: number;
  line: number;
  call_stack: { frame_id: number; function_name: string; line_number: number }[];
  error_autopsy?: {
    message?: string;
    caught?: boolean;
    raised_at?: Place;
    first_user_frame?: Place;
    user_frames: UserFrame[];
    caught_at?: Place & { text?: string };
    truncated?: string;
  };
}
interface Coroutines {
  listed: { id: string; status: string; wrap?: boolean; at?: string; preview?: string }[];
  total: number;
  not_listed?: number;
  known: string;
}

const sc = scenario('autopsy');
const base = (p: string | undefined) => (p ?? '').split(/[\\/]/).pop();

for (const lua of luaInterpreters()) {
  describe(`MCP error autopsy with ${lua.command}`, function () {
    this.timeout(60_000);
    let fixture: HeadlessFixture | undefined;
    let client: Client;
    const call = (name: string, args: Record<string, unknown> = {}): Promise<ToolCallResult> =>
      callTool(client, name, args);

    beforeEach(async () => {
      fixture = await HeadlessFixture.start(await scenarioWorkspace(lua, sc));
      client = await fixture.connect();
    });
    afterEach(async () => {
      await fixture?.close();
      fixture = undefined;
    });

    it('an uncaught library error: raising frame, first user frame, user frames with locals and lines', async () => {
      const stop = stopDataOf<Stop>(
        await call('start_debugging', { configuration_name: 'Launch uncaught.lua' }),
      );
      assert.equal(stop.reason, 'exception');
      const autopsy = stop.error_autopsy;
      assert.ok(autopsy, JSON.stringify(stop));
      assert.match(autopsy.message ?? '', /not enough iron \(have 3, need 5\)/);
      assert.equal(autopsy.caught, false);
      assert.equal(base(autopsy.raised_at?.file_path), 'inventory.lua', JSON.stringify(stop));
      assert.equal(autopsy.raised_at?.line, sc.line('lua_modules/inventory.lua', 'library-raises'));
      assert.equal(base(autopsy.first_user_frame?.file_path), 'uncaught.lua');
      assert.equal(autopsy.first_user_frame?.line, sc.line('uncaught.lua', 'craft-calls-library'));
      assert.deepEqual(
        autopsy.user_frames.map((f) => f.line),
        [
          sc.line('uncaught.lua', 'craft-calls-library'),
          sc.line('uncaught.lua', 'build-calls-craft'),
          sc.line('uncaught.lua', 'turn-calls-build'),
        ],
      );
      const craft = autopsy.user_frames[0];
      assert.equal(craft.locals?.find((v) => v.name === 'cost')?.value, '5');
      const current = craft.source_lines?.find((l) => l.current);
      assert.equal(current?.line, craft.line);
      assert.match(current?.text ?? '', /inventory\.take/);
      assert.equal(craft.source_lines?.length, 5, '±2 lines');
      const turn = autopsy.user_frames[2];
      assert.ok(
        turn.locals?.some((v) => v.name === 'bag'),
        JSON.stringify(turn),
      );
      assert.equal(autopsy.caught_at, undefined);
      const bytes = Buffer.byteLength(JSON.stringify(stop));
      assert.ok(bytes <= STOP_BUDGET_BYTES, `${bytes} bytes`);
      console.log(`      stop_event_data with its autopsy: ${bytes} bytes`);
      assert.equal(
        (await call('continue_debugging', { thread_id: stop.thread_id })).status,
        'completed',
      );
    });

    it('an error a pcall catches: the catch line and frame', async () => {
      const stop = stopDataOf<Stop>(
        await call('start_debugging', {
          configuration_name: 'Launch caught.lua',
          exception_filters: ['caught'],
        }),
      );
      assert.equal(stop.reason, 'exception');
      assert.equal(stop.line, sc.line('caught.lua', 'raised'));
      const autopsy = stop.error_autopsy;
      assert.ok(autopsy, JSON.stringify(stop));
      assert.equal(autopsy.caught, true);
      assert.match(autopsy.message ?? '', /not a number: two/);
      assert.equal(autopsy.first_user_frame?.line, sc.line('caught.lua', 'raised'));
      const caughtLine = sc.line('caught.lua', 'caught-here');
      assert.equal(base(autopsy.caught_at?.file_path), 'caught.lua');
      assert.equal(autopsy.caught_at?.line, caughtLine);
      assert.match(autopsy.caught_at?.text ?? '', /pcall\(parse, text\)/);
      assert.equal(autopsy.caught_at?.function_name, 'sumAll');
      const frame = stop.call_stack.find((f) => f.frame_id === autopsy.caught_at?.frame_id);
      assert.equal(frame?.line_number, caughtLine);
      assert.equal(
        (await call('continue_debugging', { thread_id: stop.thread_id })).status,
        'completed',
      );
    });

    it('get_debug_state lists the coroutines: suspended, normal, running, dead', async () => {
      const set = await call('set_breakpoint', {
        file_path: 'coroutines.lua',
        line_number: sc.line('coroutines.lua', 'inner-runs'),
      });
      assert.equal(set.status, 'success', set.message);
      const stop = stopDataOf<Stop>(
        await call('start_debugging', { configuration_name: 'Launch coroutines.lua' }),
      );
      assert.equal(stop.reason, 'breakpoint');
      const state = await call('get_debug_state');
      const list = state.coroutines as Coroutines | undefined;
      assert.ok(list, JSON.stringify(state));
      assert.equal(list.total, list.listed.length + (list.not_listed ?? 0));
      const byStatus = (s: string) => list.listed.filter((c) => c.status === s);
      assert.equal(byStatus('running').length, 1);
      assert.deepEqual(
        byStatus('normal').map((c) => c.at),
        [`coroutines.lua:${sc.line('coroutines.lua', 'outer-resumes')}`],
      );
      const suspended = byStatus('suspended');
      assert.deepEqual(
        suspended.map((c) => c.at).sort(),
        [
          `coroutines.lua:${sc.line('coroutines.lua', 'producer-yields')}`,
          `coroutines.lua:${sc.line('coroutines.lua', 'wrap-yields')}`,
        ].sort(),
      );
      assert.equal(suspended.filter((c) => c.wrap).length, 1);
      assert.ok(suspended.some((c) => /coroutine\.yield\(name \.\. i\)/.test(c.preview ?? '')));
      assert.ok(byStatus('dead').length <= 1, 'a dead one is listed until it is collected');
      assert.match(list.known, /since the debugger attached/);
      assert.equal(
        (await call('continue_debugging', { thread_id: stop.thread_id })).status,
        'completed',
      );
    });
  });
}
