/**
 * evaluate_expression and get_variables as an agent meets them, with the SDK's own client against
 * headless luapanda-mcp on real Lua: evaluation in the top frame of the latest stop when no
 * frame_id is given (frame ids change at every step), every result of an expression, nothing
 * for a statement, errors told once, and values shown as previews.
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HeadlessFixture, ToolCallResult, callTool, makeWorkspace } from './headlessFixture';
import { luaInterpreters } from '../harness/interpreters';
import { scenario } from '../harness/scenario';

const FOLDER = scenario('variables').dir;
const FILE = 'entities.lua';

interface View {
  name: string;
  value: string;
  variables_reference: number;
}
interface Stop {
  thread_id: number;
  call_stack: { frame_id: number }[];
  top_frame_variables: { variables: View[] } | null;
}

for (const lua of luaInterpreters()) {
  describe(`MCP evaluation and previews with ${lua.command}`, function () {
    this.timeout(60_000);
    let fixture: HeadlessFixture;
    let client: Client;
    const call = (name: string, args: Record<string, unknown> = {}): Promise<ToolCallResult> =>
      callTool(client, name, args);

    beforeEach(async () => {
      const text = await fs.readFile(path.join(FOLDER, FILE), 'utf8');
      const workspace = await makeWorkspace({ [FILE]: text }, [
        {
          type: 'luapanda',
          request: 'launch',
          name: 'entities',
          program: `\${workspaceFolder}/${FILE}`,
          cwd: '${workspaceFolder}',
          luaPath: lua.command,
        },
      ]);
      fixture = await HeadlessFixture.start(workspace);
      client = await fixture.connect();
      const stopLine = text.split('\n').findIndex((l) => l.includes('@stop')) + 1;
      const set = await call('set_breakpoint', { file_path: FILE, line_number: stopLine });
      assert.equal(set.status, 'success');
    });

    afterEach(() => fixture.close());

    async function start(): Promise<Stop> {
      const started = await call('start_debugging', { configuration_name: 'entities' });
      assert.equal(started.status, 'stopped', started.message);
      return started.stop_event_data as Stop;
    }

    it('evaluates in the top frame of the latest stop when no frame_id is given', async () => {
      const stop = await start();
      const both = await call('evaluate_expression', { expression: 'self.hp, self.shield' });
      assert.deepEqual(
        [both.status, both.result, both.type],
        ['success', '60, 0', 'number, number'],
      );
      const two = await call('evaluate_expression', { expression: 'util.helper(2, 3)' });
      assert.equal(two.result, '5, 8');
      const statement = await call('evaluate_expression', { expression: 'print("hi")' });
      assert.deepEqual([statement.status, statement.result], ['success', '']);
      // After a step the old frame ids are gone; the default follows the new stop.
      await call('step_execution', { thread_id: stop.thread_id, step_type: 'over' });
      const damage = await call('evaluate_expression', { expression: 'damage * 2' });
      assert.deepEqual([damage.status, damage.result], ['success', '20']);
      // An explicit frame still works: the caller's locals.
      const trace = await call('get_stack_trace', { thread_id: stop.thread_id });
      const caller = (trace.stack_frames as { frame_id: number }[])[1].frame_id;
      const hero = await call('evaluate_expression', { expression: 'hero', frame_id: caller });
      assert.equal(hero.result, 'Entity {hp = 60, name = "hero", shield = 0}');
    });

    it('tells a failed evaluation once, in every context', async () => {
      await start();
      for (const context of ['repl', 'watch', 'hover']) {
        const failed = await call('evaluate_expression', { expression: 'nosuch.field', context });
        assert.equal(failed.code, 'evaluate-failed', `${context}: ${JSON.stringify(failed)}`);
        const message = String(failed.message);
        assert.match(message, /^Could not evaluate "nosuch\.field": \(eval\):1: attempt to index/);
        assert.equal(message.split('Could not evaluate').length, 2, message);
      }
    });

    it('shows values as previews in stop data and get_variables', async () => {
      const stop = await start();
      const self = stop.top_frame_variables?.variables.find((v) => v.name === 'self');
      assert.equal(self?.value, 'Entity {hp = 60, name = "hero", shield = 0}');
      const scopes = await call('get_scopes', { frame_id: stop.call_stack[1].frame_id });
      const locals = (scopes.scopes as { name: string; variables_reference: number }[])[0];
      const vars = await call('get_variables', { variables_reference: locals.variables_reference });
      const byName = new Map((vars.variables as View[]).map((v) => [v.name, v]));
      assert.match(String(byName.get('list')?.value), /^\{1, 2, 3, .*, … \(200\)\}$/);
      assert.match(String(byName.get('update')?.value), /^function <entities\.lua:8>$/);
      const list = byName.get('list') as View;
      const page = await call('get_variables', {
        variables_reference: list.variables_reference,
        start: 100,
        count: 2,
      });
      assert.deepEqual(
        (page.variables as View[]).map((v) => [v.name, v.value]),
        [
          ['[101]', '101'],
          ['[102]', '102'],
        ],
      );
      assert.deepEqual([page.has_more, page.next_start], [true, 102]);
    });
  });
}
