/**
 * The MCP tools end to end: the SDK's own `Client` over Streamable HTTP against headless
 * `luapanda-mcp` (our adapter in process, real Lua, real TCP), under every installed interpreter.
 * The client validates every result against the tool's output schema, so a result that strays
 * from its schema fails here.
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HeadlessFixture, ToolCallResult, callTool, makeWorkspace } from './headlessFixture';
import { LuaInterpreter, luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT } from '../harness/luaProcess';

const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'mcp-workspace');
const COMPILED_LOOP = path.join(REPO_ROOT, 'test', 'fixtures', 'adapter', 'compiledLoop.lua');

type Result = ToolCallResult;
interface StopData {
  reason: string;
  thread_id: number;
  line: number | null;
  call_stack: {
    frame_id: number;
    function_name: string;
    file_path: string | null;
    line_number: number;
  }[];
  top_frame_variables: {
    variables: { name: string; value: string; variables_reference: number }[];
  } | null;
  hit_breakpoint_ids: number[] | null;
  session_id: string;
}

/** A workspace folder with the fixtures and a launch.json for `lua`. */
async function workspaceFor(lua: LuaInterpreter): Promise<string> {
  const files: Record<string, string> = {};
  for (const file of await fs.readdir(FIXTURES)) {
    files[file] = await fs.readFile(path.join(FIXTURES, file), 'utf8');
  }
  // The loop the adapter tests pause in LuaJIT-compiled code, shared rather than copied.
  files['compiledLoop.lua'] = await fs.readFile(COMPILED_LOOP, 'utf8');
  const launch = (name: string, program: string, extra: object = {}) => ({
    type: 'luapanda',
    request: 'launch',
    name,
    program: `\${workspaceFolder}/${program}`,
    cwd: '${workspaceFolder}',
    luaPath: lua.command,
    ...extra,
  });
  return makeWorkspace(files, [
    launch('game', 'game.lua'),
    launch('game (stop on entry)', 'game.lua', { stopOnEntry: true }),
    launch('forever', 'forever.lua'),
    launch('compiled loop', 'compiledLoop.lua'),
    launch('broken', 'broken.lua'),
    launch('missing program', 'no-such-file.lua'),
  ]);
}

for (const lua of luaInterpreters()) {
  describe(`MCP tools with ${lua.command}`, function () {
    this.timeout(60_000);
    let fixture: HeadlessFixture;
    const connect = () => fixture.connect();
    const call = (
      client: Client,
      name: string,
      args: Record<string, unknown> = {},
      signal?: AbortSignal,
    ) => callTool(client, name, args, { signal });

    function stopOf(result: Result): StopData {
      assert.equal(
        result.status,
        'stopped',
        `expected a stop, got ${result.status}: ${result.message}`,
      );
      return result.stop_event_data as StopData;
    }

    beforeEach(async () => {
      fixture = await HeadlessFixture.start(await workspaceFor(lua));
    });

    afterEach(() => fixture.close());

    it('runs the golden path: configurations, breakpoint, start, inspect, step, continue, output', async () => {
      const client = await connect();
      const configs = await call(client, 'get_debugger_configurations');
      assert.equal(configs.status, 'success');
      assert.ok((configs.configurations as { name: string }[]).some((c) => c.name === 'game'));

      const set = await call(client, 'set_breakpoint', {
        file_path: 'game.lua',
        line_number: 5,
        condition: 'i == 2',
      });
      assert.equal(set.status, 'success');
      const bp = set.breakpoint as {
        id: number;
        verified: boolean;
        source: { path: string };
        timestamp: string;
      };
      assert.equal(bp.source.path, path.join(fixture.workspace, 'game.lua'));
      assert.match(bp.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

      const started = await call(client, 'start_debugging', { configuration_name: 'game' });
      const stop = stopOf(started);
      assert.equal(stop.reason, 'breakpoint');
      assert.equal(stop.line, 5);
      assert.deepEqual(stop.hit_breakpoint_ids, [bp.id]);
      // Named as the code names it (`local function accumulate`), the caller too.
      assert.deepEqual(
        stop.call_stack.map((f) => f.function_name),
        ['accumulate', 'main chunk'],
        JSON.stringify(stop.call_stack),
      );
      const locals = stop.top_frame_variables?.variables ?? [];
      assert.equal(locals.find((v) => v.name === 'i')?.value, '2');
      assert.equal(locals.find((v) => v.name === 'n')?.value, '3');
      assert.ok(
        Buffer.byteLength(JSON.stringify(started)) < 8 * 1024,
        'a typical stop stays under 8 KB',
      );

      const breakpoints = await call(client, 'get_breakpoints');
      assert.equal((breakpoints.breakpoints as { verified: boolean }[])[0].verified, true);

      const frameId = stop.call_stack[0].frame_id;
      const value = await call(client, 'evaluate_expression', {
        expression: 'total + i * 10',
        frame_id: frameId,
      });
      assert.deepEqual([value.status, value.result], ['success', '21']);

      const scopes = await call(client, 'get_scopes', {
        frame_id: stop.call_stack.at(-1)!.frame_id,
      });
      const mainLocals = (
        scopes.scopes as { name: string; variables_reference: number; expensive: boolean }[]
      ).find((s) => !s.expensive)!;
      const vars = await call(client, 'get_variables', {
        variables_reference: mainLocals.variables_reference,
      });
      const config = (vars.variables as { name: string; variables_reference: number }[]).find(
        (v) => v.name === 'config',
      )!;
      assert.ok(config.variables_reference > 0);
      const children = await call(client, 'get_variables', {
        variables_reference: config.variables_reference,
      });
      assert.ok((children.variables as { name: string }[]).some((v) => v.name.includes('sizes')));

      const stepped = stopOf(
        await call(client, 'step_execution', { thread_id: stop.thread_id, step_type: 'over' }),
      );
      assert.equal(stepped.reason, 'step');
      assert.equal(stepped.line, 4);

      await call(client, 'remove_breakpoint', { breakpoint_id: bp.id });
      const end = await call(client, 'continue_debugging', { thread_id: stop.thread_id });
      assert.equal(end.status, 'completed', end.message);

      const output = await call(client, 'get_output');
      const lines = (output.groups as { lines: { text: string }[] }[]).flatMap((g) =>
        g.lines.map((l) => l.text),
      );
      assert.ok(lines.includes('done'), lines.join('\n'));
      const state = await call(client, 'get_debug_state');
      assert.equal(state.state, 'Terminated');
    });

    it('stops on entry and reports a missing thread, frame and reference clearly', async () => {
      const client = await connect();
      const stop = stopOf(
        await call(client, 'start_debugging', { configuration_name: 'game (stop on entry)' }),
      );
      assert.equal(stop.reason, 'entry');
      const badThread = await call(client, 'continue_debugging', { thread_id: 987654 });
      assert.equal(badThread.status, 'error');
      assert.equal(badThread.code, 'unknown-thread');
      const badFrame = await call(client, 'get_scopes', { frame_id: 987654 });
      assert.equal(badFrame.status, 'error');
      assert.equal(badFrame.code, 'read-failed');
      const badRef = await call(client, 'get_variables', { variables_reference: 987654 });
      assert.equal(badRef.status, 'error');
      assert.equal(badRef.code, 'read-failed');
      const syntax = await call(client, 'evaluate_expression', {
        expression: 'local = = 1',
        frame_id: stop.call_stack[0].frame_id,
      });
      assert.equal(syntax.status, 'error');
      assert.equal(syntax.code, 'evaluate-failed');
      const stopped = await call(client, 'stop_debugging');
      assert.equal(stopped.status, 'success');
      const none = await call(client, 'stop_debugging');
      assert.equal(none.status, 'error');
      assert.equal(none.code, 'no-session');
    });

    it('reports errors an agent can act on: unknown configuration, no session, missing file, bad program', async () => {
      const client = await connect();
      const unknown = await call(client, 'start_debugging', { configuration_name: 'nope' });
      assert.equal(unknown.code, 'invalid-configuration');
      // The message lists what there is, for the agent's next call.
      assert.match(String(unknown.message), /No configuration named "nope"\. Available: "game"/);
      const noSession = await call(client, 'step_execution', { thread_id: 1, step_type: 'over' });
      assert.equal(noSession.code, 'no-session');
      assert.match(String(noSession.message), /start_debugging/);
      const missing = await call(client, 'set_breakpoint', {
        file_path: 'nowhere.lua',
        line_number: 1,
      });
      assert.equal(missing.status, 'error');
      assert.equal(missing.code, 'file-not-found');
      const outside = await call(client, 'set_breakpoint', {
        file_path: '/etc/hostname',
        line_number: 1,
      });
      assert.equal(outside.status, 'error');
      assert.equal(outside.code, 'outside-workspace');
      const nothing = await call(client, 'remove_breakpoint', { breakpoint_id: 99 });
      assert.equal(nothing.code, 'invalid-arguments');
      assert.equal(nothing.message, 'No breakpoint with id 99. Call get_breakpoints to list them.');
      const broken = await call(client, 'start_debugging', { configuration_name: 'broken' });
      assert.equal(broken.code, 'start-failed', JSON.stringify(broken));
      const badProgram = await call(client, 'start_debugging', {
        configuration_name: 'missing program',
      });
      assert.equal(badProgram.code, 'start-failed', JSON.stringify(badProgram));
    });

    it('times out while the program runs on, then pauses it, and stop_debugging interrupts a waiting call', async () => {
      const agent = await connect();
      const other = await connect();
      const timedOut = await call(agent, 'start_debugging', {
        configuration_name: 'forever',
        timeout_seconds: 1,
      });
      assert.equal(timedOut.status, 'timeout', JSON.stringify(timedOut));
      assert.equal((await call(agent, 'get_debug_state')).state, 'Running');

      const paused = stopOf(await call(agent, 'pause_debugging', { timeout_seconds: 20 }));
      assert.equal(paused.reason, 'pause');

      const waiting = call(agent, 'continue_debugging', {
        thread_id: paused.thread_id,
        timeout_seconds: 40,
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal((await call(other, 'stop_debugging')).status, 'success');
      const interrupted = await waiting;
      assert.equal(interrupted.status, 'interrupted', JSON.stringify(interrupted));
    });

    it(
      lua.isLuaJIT
        ? "pauses a loop running compiled (the accelerator and LuaJIT's profiler reach it)"
        : 'pauses a loop LuaJIT would compile',
      async () => {
        const client = await connect();
        const started = await call(client, 'start_debugging', {
          configuration_name: 'compiled loop',
          timeout_seconds: 2,
        });
        assert.equal(started.status, 'timeout', JSON.stringify(started));
        const paused = stopOf(await call(client, 'pause_debugging', { timeout_seconds: 30 }));
        assert.equal(paused.reason, 'pause');
        assert.equal((await call(client, 'stop_debugging')).status, 'success');
      },
    );

    it('a cancelled wait leaves the session running', async () => {
      const client = await connect();
      assert.equal(
        (
          await call(client, 'start_debugging', {
            configuration_name: 'forever',
            timeout_seconds: 1,
          })
        ).status,
        'timeout',
      );
      const paused = stopOf(await call(client, 'pause_debugging'));
      const controller = new AbortController();
      const cancelled = call(
        client,
        'continue_debugging',
        { thread_id: paused.thread_id },
        controller.signal,
      );
      setTimeout(() => controller.abort(), 300);
      await assert.rejects(cancelled);
      assert.equal((await call(client, 'get_debug_state')).state, 'Running');
    });
  });
}
