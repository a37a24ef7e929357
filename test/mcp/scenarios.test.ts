/**
 * The shared scenarios (test/scenarios) driven by an agent: the SDK's client against headless
 * luapanda-mcp on real Lua, in a workspace holding the scenario's programs and its own
 * launch.json, with the lines the runtime and adapter tests use, found by the same markers.
 */
import * as assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HeadlessFixture, ToolCallResult, callTool, stopDataOf } from './headlessFixture';
import { scenarioWorkspace } from './luaWorkspace';
import { luaInterpreters } from '../harness/interpreters';
import { scenario } from '../harness/scenario';

interface Stop {
  reason: string;
  thread_id: number;
  line: number;
  source: { path: string } | null;
  call_stack: { function_name: string }[];
  top_frame_variables: { variables: { name: string; value: string }[] } | null;
}

const recursion = scenario('recursion');
const samename = scenario('samename');

for (const lua of luaInterpreters()) {
  describe(`MCP on the shared scenarios with ${lua.command}`, function () {
    this.timeout(60_000);
    let fixture: HeadlessFixture | undefined;
    let client: Client;
    const call = (name: string, args: Record<string, unknown> = {}): Promise<ToolCallResult> =>
      callTool(client, name, args);

    afterEach(async () => {
      await fixture?.close();
      fixture = undefined;
    });

    async function open(workspace: Promise<string>): Promise<void> {
      fixture = await HeadlessFixture.start(await workspace);
      client = await fixture.connect();
    }

    async function breakpoint(file: string, line: number): Promise<void> {
      const set = await call('set_breakpoint', { file_path: file, line_number: line });
      assert.equal(set.status, 'success', set.message);
    }

    it('recursion: stops at the base case three calls deep and steps out of one', async () => {
      await open(scenarioWorkspace(lua, recursion));
      await breakpoint('main.lua', recursion.line('main.lua', 'base'));
      const stop = stopDataOf<Stop>(
        await call('start_debugging', { configuration_name: 'Launch main.lua' }),
      );
      assert.equal(stop.reason, 'breakpoint');
      assert.equal(stop.line, recursion.line('main.lua', 'base'));
      assert.equal(stop.call_stack.filter((f) => f.function_name === 'fact').length, 3);
      assert.equal(stop.top_frame_variables?.variables.find((v) => v.name === 'n')?.value, '1');
      const out = stopDataOf<Stop>(
        await call('step_execution', { thread_id: stop.thread_id, step_type: 'out' }),
      );
      assert.equal(out.line, recursion.line('main.lua', 'multiply'));
      const done = await call('continue_debugging', { thread_id: out.thread_id });
      assert.equal(done.status, 'completed', JSON.stringify(done));
    });

    it('samename: a breakpoint in b/util.lua stops there, not in a/util.lua', async () => {
      await open(scenarioWorkspace(lua, samename));
      await breakpoint('b/util.lua', samename.line('b/util.lua', 'name'));
      const stop = stopDataOf<Stop>(
        await call('start_debugging', { configuration_name: 'Launch main.lua' }),
      );
      assert.equal(stop.line, samename.line('b/util.lua', 'name'));
      assert.match(stop.source?.path ?? '', /[\\/]b[\\/]util\.lua$/);
      const done = await call('continue_debugging', { thread_id: stop.thread_id });
      assert.equal(done.status, 'completed', JSON.stringify(done));
    });
  });
}
