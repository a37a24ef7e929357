/**
 * Function breakpoints for an agent, with the SDK's client against headless luapanda-mcp on real
 * Lua: set_function_breakpoint before any session, the stop on entry that names it in
 * hit_breakpoint_ids, get_breakpoints listing it (kind "function", where it bound), a module's
 * function that binds once required, and remove_breakpoint taking one away; and a method of
 * modules' local classes (scenario functionBreakpoints), named as the call stack names it.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HeadlessFixture, ToolCallResult, callTool, stopDataOf } from './headlessFixture';
import { lineOf, luaWorkspace, scenarioWorkspace } from './luaWorkspace';
import { luaInterpreters } from '../harness/interpreters';
import { scenario } from '../harness/scenario';

const FOLDER = 'mcp-fnbp';

interface FunctionBreakpointView {
  id: number;
  kind?: string;
  function_name?: string;
  verified: boolean;
  source?: { path: string };
  line?: number;
  message?: string;
}

interface Stop {
  thread_id: number;
  line: number;
  source: { path: string };
  call_stack: { function_name: string }[];
  hit_breakpoint_ids: number[];
  top_frame_variables: { variables: { name: string; value: string }[] };
}

for (const lua of luaInterpreters()) {
  describe(`MCP function breakpoints with ${lua.command}`, function () {
    this.timeout(60_000);
    let fixture: HeadlessFixture;
    let client: Client;
    const call = (name: string, args: Record<string, unknown> = {}): Promise<ToolCallResult> =>
      callTool(client, name, args);

    const start = async (workspace: string) => {
      fixture = await HeadlessFixture.start(workspace);
      client = await fixture.connect();
    };

    afterEach(() => fixture.close());

    async function set(args: Record<string, unknown>): Promise<FunctionBreakpointView> {
      const result = await call('set_function_breakpoint', args);
      assert.equal(result.status, 'success', result.message);
      return result.breakpoint as FunctionBreakpointView;
    }

    const listed = async () =>
      new Map(
        ((await call('get_breakpoints')).breakpoints as FunctionBreakpointView[]).map((b) => [
          b.id,
          b,
        ]),
      );

    it('stops on entry, lists and removes function breakpoints', async () => {
      await start(await luaWorkspace(lua, FOLDER));
      const add = await set({ function_name: 'Inventory:add', hit_condition: '>= 2' });
      assert.deepEqual(
        [add.kind, add.function_name, add.verified],
        ['function', 'Inventory:add', false],
      );
      assert.match(String(add.message), /No debug session yet/);
      const count = await set({ function_name: 'inventory.count' });

      const started = await call('start_debugging', { configuration_name: 'game' });
      const stop = stopDataOf<Stop>(started);
      assert.equal(stop.line, lineOf(FOLDER, 'game.lua', '@add'));
      assert.deepEqual(stop.hit_breakpoint_ids, [add.id]);
      const item = stop.top_frame_variables.variables.find((v) => v.name === 'item');
      assert.equal(item?.value, '"shield"');

      let byId = await listed();
      assert.equal(byId.get(add.id)?.kind, 'function');
      assert.equal(byId.get(add.id)?.verified, true);
      assert.equal(byId.get(add.id)?.source?.path, path.join(fixture.workspace, 'game.lua'));
      assert.equal(byId.get(add.id)?.line, lineOf(FOLDER, 'game.lua', '@add'));
      assert.equal(byId.get(count.id)?.verified, false);
      assert.match(String(byId.get(count.id)?.message), /not found yet/);

      const removed = await call('remove_breakpoint', { breakpoint_id: add.id });
      assert.deepEqual(removed.removed_ids, [add.id]);
      // The third add does not stop: the next stop is the module's function, bound once required.
      const next = stopDataOf<Stop>(
        await call('continue_debugging', { thread_id: stop.thread_id }),
      );
      assert.equal(next.line, lineOf(FOLDER, 'inventory.lua', '@count'));
      assert.deepEqual(next.hit_breakpoint_ids, [count.id]);
      byId = await listed();
      assert.equal(byId.has(add.id), false);
      assert.equal(byId.get(count.id)?.verified, true);
      assert.equal(byId.get(count.id)?.source?.path, path.join(fixture.workspace, 'inventory.lua'));

      const cleared = await call('remove_breakpoint', { clear_all: true });
      assert.ok((cleared.removed_ids as number[]).includes(count.id));
      const done = await call('continue_debugging', { thread_id: next.thread_id });
      assert.equal(done.status, 'completed', JSON.stringify(done));
    });

    it('binds a method of local classes by the name the call stack shows', async () => {
      const sc = scenario('functionBreakpoints');
      await start(await scenarioWorkspace(lua, sc));
      const update = await set({ function_name: 'Entity:update', hit_condition: '<= 2' });
      const started = await call('start_debugging', { configuration_name: 'Launch main.lua' });
      const first = stopDataOf<Stop>(started);
      const entity = path.join(fixture.workspace, 'game', 'entity.lua');
      assert.deepEqual(
        [first.source.path, first.line, first.call_stack[0].function_name],
        [entity, sc.line('game/entity.lua', 'update'), 'Entity:update'],
      );
      assert.deepEqual(first.hit_breakpoint_ids, [update.id]);
      const listed = (await call('get_breakpoints')).breakpoints as FunctionBreakpointView[];
      const bound = listed.find((b) => b.id === update.id);
      assert.deepEqual(
        [bound?.verified, bound?.source?.path, bound?.line],
        [true, entity, sc.line('game/entity.lua', 'update')],
      );
      // game/other.lua's class is an Entity too: the name stops there as well.
      const second = stopDataOf<Stop>(
        await call('continue_debugging', { thread_id: first.thread_id }),
      );
      assert.deepEqual(
        [second.source.path, second.line, second.hit_breakpoint_ids],
        [
          path.join(fixture.workspace, 'game', 'other.lua'),
          sc.line('game/other.lua', 'otherUpdate'),
          [update.id],
        ],
      );
      const done = await call('continue_debugging', { thread_id: second.thread_id });
      assert.equal(done.status, 'completed', JSON.stringify(done));
    });
  });
}
