/**
 * Exception filters from MCP, end to end with the MCP SDK client against real Lua under every
 * interpreter: start_debugging's `exception_filters`, the `set_exception_filters` tool while the
 * program is paused, the filters of each session in get_debug_state, and what each filter stops
 * on (a caught error only with "caught"; a failed assert, caught or not, with "assert").
 */
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HeadlessFixture, ToolCallResult, callTool, stopDataOf } from './headlessFixture';
import { lineOf, luaWorkspace } from './luaWorkspace';
import { luaInterpreters } from '../harness/interpreters';
import { scenario } from '../harness/scenario';

const FOLDER = scenario('exceptions').dir;
const line = (marker: string) => lineOf(FOLDER, 'caught.lua', marker);

interface StopData {
  reason: string;
  description: string | null;
  thread_id: number;
  line: number | null;
  session_id: string;
}

const stopOf = (result: ToolCallResult) => stopDataOf<StopData>(result);

for (const lua of luaInterpreters()) {
  describe(`MCP exception filters with ${lua.command}`, function () {
    this.timeout(60_000);
    let fixture: HeadlessFixture;
    let client: Client;

    beforeEach(async () => {
      fixture = await HeadlessFixture.start(await luaWorkspace(lua, FOLDER));
      client = await fixture.connect();
    });
    afterEach(() => fixture.close());

    const start = (filters?: (string | { filter: string; condition: string })[]) =>
      callTool(client, 'start_debugging', {
        configuration_name: 'caught',
        ...(filters ? { exception_filters: filters } : {}),
      });
    const resume = (stop: StopData) =>
      callTool(client, 'continue_debugging', { thread_id: stop.thread_id });

    it('by default only the uncaught error stops; get_debug_state shows the filters', async () => {
      const stop = stopOf(await start());
      assert.equal(stop.reason, 'exception');
      assert.equal(stop.line, line('uncaught here'));
      assert.match(stop.description ?? '', /uncaught error: .*final: 6/);
      const state = await callTool(client, 'get_debug_state');
      const sessions = state.sessions as { id: string; exception_filters?: string[] }[];
      assert.deepEqual(sessions.find((s) => s.id === stop.session_id)?.exception_filters, [
        'uncaught',
      ]);
      assert.equal((await resume(stop)).status, 'completed');
    });

    it('with "caught", errors a pcall catches stop too, in order', async () => {
      const first = stopOf(await start(['uncaught', 'caught']));
      assert.equal(first.line, line('assert fails here'));
      assert.match(first.description ?? '', /caught error: .*value must be positive/);
      const second = stopOf(await resume(first));
      assert.equal(second.line, line('error raised here'));
      const third = stopOf(await resume(second));
      assert.equal(third.line, line('assert in coroutine'), 'an error ending a resumed coroutine');
      const fourth = stopOf(await resume(third));
      assert.equal(fourth.line, line('uncaught here'));
      assert.equal((await resume(fourth)).status, 'completed');
    });

    it('with "assert" only, a failed assert stops even when caught, and nothing else does', async () => {
      const stop = stopOf(await start(['assert']));
      assert.equal(stop.line, line('assert fails here'));
      const inCoroutine = stopOf(await resume(stop));
      assert.equal(inCoroutine.line, line('assert in coroutine'));
      const end = await resume(inCoroutine);
      assert.equal(
        end.status,
        'completed',
        'the caught error() and the uncaught error do not stop',
      );
    });

    it('set_exception_filters changes them while paused, and refuses unknown names', async () => {
      const stop = stopOf(await start(['assert']));
      const unknown = await callTool(client, 'set_exception_filters', { filters: ['everything'] });
      assert.equal(unknown.code, 'invalid-arguments');
      assert.match(
        String(unknown.message),
        /Unknown exception filter\(s\): everything.*uncaught, caught, assert/,
      );
      const set = await callTool(client, 'set_exception_filters', {
        filters: ['caught'],
        session_id: stop.session_id,
      });
      assert.equal(set.status, 'success', JSON.stringify(set));
      assert.deepEqual(set.exception_filters, ['caught']);
      assert.deepEqual(set.available_filters, ['uncaught', 'caught', 'assert']);
      const state = await callTool(client, 'get_debug_state');
      assert.deepEqual(
        (state.sessions as { exception_filters?: string[] }[])[0].exception_filters,
        ['caught'],
      );
      const caught = stopOf(await resume(stop));
      assert.equal(caught.line, line('error raised here'), 'the caught error() stops now');
      const inCoroutine = stopOf(await resume(caught));
      assert.equal(inCoroutine.line, line('assert in coroutine'));
      const none = await callTool(client, 'set_exception_filters', { filters: [] });
      assert.equal(none.status, 'success');
      const end = await resume(inCoroutine);
      assert.equal(end.status, 'completed', 'with no filter even the uncaught error does not stop');
    });

    it('a filter with a condition stops in a pcall only when the message contains it', async () => {
      // Of the errors pcall catches, only "explode: caught" contains the condition.
      const stop = stopOf(await start(['uncaught', { filter: 'caught', condition: 'explode:' }]));
      assert.equal(stop.line, line('error raised here'));
      assert.match(stop.description ?? '', /caught error: .*explode: caught/);
      const state = await callTool(client, 'get_debug_state');
      assert.deepEqual(
        (state.sessions as { exception_filters?: unknown[] }[])[0].exception_filters,
        ['uncaught', { filter: 'caught', condition: 'explode:' }],
      );
      // Changed while paused: the uncaught error's message does not contain "nothing like it".
      const set = await callTool(client, 'set_exception_filters', {
        filters: [{ filter: 'uncaught', condition: 'nothing like it' }, 'assert'],
      });
      assert.equal(set.status, 'success', JSON.stringify(set));
      assert.match(String(set.message), /uncaught \(message contains "nothing like it"\), assert/);
      const inCoroutine = stopOf(await resume(stop));
      assert.equal(inCoroutine.line, line('assert in coroutine'), 'the failed assert still stops');
      const end = await resume(inCoroutine);
      assert.equal(end.status, 'completed', 'the uncaught error does not match: no stop');
    });

    it('start_debugging refuses a filter Lua does not have, before starting', async () => {
      const refused = await start(['all']);
      assert.equal(refused.code, 'invalid-arguments');
      assert.match(
        String(refused.message),
        /Unknown exception filter\(s\): all\. Lua offers: uncaught, caught, assert/,
      );
      assert.equal((await callTool(client, 'get_debug_state')).state, 'Idle');
    });
  });
}
