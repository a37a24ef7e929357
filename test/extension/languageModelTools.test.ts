/**
 * The debugger tools as VS Code language-model tools, over the real headless backend and a real
 * Lua program (only the `vscode` module is a stand-in): registration follows the API and the
 * setting, a call acts on the backend's sessions and returns what an MCP client gets — results
 * and errors alike —, cancellation ends the wait, and state changes ask first.
 */
import {
  CancellationError,
  EventEmitter,
  LanguageModelTextPart,
  LanguageModelToolResult,
  resetVscode,
  setSetting,
} from './vscodeStub';
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import type * as vscodeTypes from 'vscode';
import { HeadlessBackend, createHeadlessBackend } from '../../src/cli/headlessBackend';
import { LanguageModelTools } from '../../src/extension/agentTools/languageModelTools';
import { readSettings } from '../../src/extension/settings';
import { InProcessClient, connectInProcess } from '../../src/mcp/inProcessClient';
import { TOOLS } from '../../src/mcp/server';
import { luaInterpreters } from '../harness/interpreters';
import { makeWorkspace } from '../mcp/headlessFixture';

const lua = luaInterpreters().find((i) => i.command === 'lua5.4') ?? luaInterpreters()[0];

const MAIN = `local total = 0
for i = 1, 3 do
  total = total + i -- @sum
end
print("total", total)
`;
const SLOW = `-- runs until stopped
while true do os.execute("sleep 0.1") end
`;

type Tool = vscodeTypes.LanguageModelTool<object>;

/** A result's JSON without its `timestamp` (two calls are never at the same millisecond). */
function timeless(text: string): unknown {
  const result = JSON.parse(text) as Record<string, unknown>;
  delete result.timestamp;
  return result;
}

/** A cancellation token VS Code would pass, with its source's cancel(). */
function cancellation(): { token: vscodeTypes.CancellationToken; cancel(): void } {
  const emitter = new EventEmitter<void>();
  const token = {
    isCancellationRequested: false,
    onCancellationRequested: emitter.event,
  } as unknown as vscodeTypes.CancellationToken;
  return {
    token,
    cancel: () => {
      (token as { isCancellationRequested: boolean }).isCancellationRequested = true;
      emitter.fire();
    },
  };
}

describe('extension: language-model tools', function () {
  this.timeout(60_000);
  let workspace: string;
  let backend: HeadlessBackend;
  let registered: Map<string, Tool>;
  let lmTools: LanguageModelTools;
  let mcp: InProcessClient;
  const lm = {
    registerTool: (name: string, tool: Tool) => {
      registered.set(name, tool);
      return { dispose: () => void registered.delete(name) };
    },
  };

  /** The text a language-model tool call returns, as the model reads it. */
  async function invoke(name: string, input: object, token = cancellation().token) {
    const tool = registered.get(name);
    assert.ok(tool, `${name} is registered`);
    const options = { input, toolInvocationToken: undefined };
    const result = (await tool.invoke(options, token)) as unknown as LanguageModelToolResult;
    assert.ok(result instanceof LanguageModelToolResult);
    assert.equal(result.content.length, 1);
    const part = result.content[0] as LanguageModelTextPart;
    assert.ok(part instanceof LanguageModelTextPart);
    return part.value;
  }

  /** The text an MCP client gets for the same call. */
  async function mcpText(name: string, args: Record<string, unknown>): Promise<string> {
    const result = await mcp.callTool(name, args);
    return (result.content[0] as { text: string }).text;
  }

  before(async () => {
    assert.ok(lua, 'a Lua interpreter is installed');
    workspace = await makeWorkspace({ 'main.lua': MAIN, 'slow.lua': SLOW }, [
      {
        type: 'luapanda',
        request: 'launch',
        name: 'main',
        program: '${workspaceFolder}/main.lua',
        luaPath: lua.command,
      },
      {
        type: 'luapanda',
        request: 'launch',
        name: 'slow',
        program: '${workspaceFolder}/slow.lua',
        luaPath: lua.command,
      },
    ]);
  });

  beforeEach(async () => {
    resetVscode();
    registered = new Map();
    backend = createHeadlessBackend({ workspaceFolder: workspace });
    lmTools = new LanguageModelTools(
      {
        createServer: () => backend.createServer(),
        enabled: () => readSettings().languageModelTools,
        confirmChanges: () => readSettings().confirmLanguageModelToolChanges,
        log: () => undefined,
      },
      lm,
    );
    mcp = await connectInProcess(backend.createServer(), 'lm-tools-test');
  });

  afterEach(async () => {
    lmTools.dispose();
    await mcp.close();
    await backend.dispose();
  });

  after(() => fs.rm(workspace, { recursive: true, force: true }));

  it('registers every MCP tool under its name; none without vscode.lm; follows the setting live', () => {
    assert.deepEqual(
      [...registered.keys()],
      TOOLS.map((t) => t.name),
    );
    assert.equal(lmTools.supported, true);

    setSetting('luapanda.languageModelTools.enabled', false);
    lmTools.refresh();
    assert.equal(registered.size, 0);
    assert.deepEqual(lmTools.registered, []);
    setSetting('luapanda.languageModelTools.enabled', true);
    lmTools.refresh();
    assert.equal(registered.size, TOOLS.length);

    const old = new LanguageModelTools(
      {
        createServer: () => backend.createServer(),
        enabled: () => true,
        confirmChanges: () => true,
        log: () => undefined,
      },
      undefined,
    );
    assert.equal(old.supported, false);
    assert.deepEqual(old.registered, []);
    old.dispose();
  });

  it('drives the backend session and answers what the MCP tool answers', async () => {
    const set = JSON.parse(
      await invoke('set_breakpoint', { file_path: 'main.lua', line_number: 3 }),
    );
    assert.equal(set.status, 'success');
    assert.deepEqual(
      timeless(await invoke('get_breakpoints', {})),
      timeless(await mcpText('get_breakpoints', {})),
      'the same result as an MCP client gets',
    );

    const started = JSON.parse(await invoke('start_debugging', { configuration_name: 'main' }));
    assert.equal(started.status, 'stopped', JSON.stringify(started));
    assert.equal(started.stop_event_data.line, 3);
    const session = backend.channel.activeSession();
    assert.ok(session, 'the call started a session on the shared channel');
    assert.equal(started.session_id, session.id);
    assert.equal(backend.context.monitor.state(session.id), 'Stopped');
    assert.deepEqual(
      timeless(await invoke('get_debug_state', {})),
      timeless(await mcpText('get_debug_state', {})),
    );

    const ended = JSON.parse(await invoke('stop_debugging', {}));
    assert.equal(ended.status, 'success', JSON.stringify(ended));
  });

  it('gives errors as the MCP tool gives them: a refused call and invalid arguments', async () => {
    const refused = await invoke('get_variables', { variables_reference: 1 });
    assert.equal(JSON.parse(refused).status, 'error');
    assert.equal(refused, await mcpText('get_variables', { variables_reference: 1 }));

    const invalid = await invoke('set_breakpoint', { file_path: 'main.lua', line_number: 'x' });
    assert.match(invalid, /line_number/);
    assert.equal(
      invalid,
      await mcpText('set_breakpoint', { file_path: 'main.lua', line_number: 'x' }),
    );
  });

  it('a cancelled call stops waiting and leaves the session running', async () => {
    const { token, cancel } = cancellation();
    const call = invoke(
      'start_debugging',
      { configuration_name: 'slow', timeout_seconds: 40 },
      token,
    );
    const deadline = Date.now() + 20_000;
    while (!backend.channel.activeSession() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const session = backend.channel.activeSession();
    assert.ok(session, 'the session started');
    cancel();
    await assert.rejects(call, (e: unknown) => e instanceof CancellationError);
    assert.equal(backend.context.monitor.state(session.id), 'Running');
    const state = JSON.parse(await invoke('get_debug_state', {}));
    assert.equal(state.state, 'Running');
  });

  it('asks before a call that changes state, unless the setting says not to', async () => {
    const prepare = (name: string, input: object) =>
      registered.get(name)!.prepareInvocation!(
        { input },
        cancellation().token,
      ) as vscodeTypes.PreparedToolInvocation;
    const step = prepare('step_execution', { thread_id: 1, step_type: 'over' });
    assert.equal(step.confirmationMessages?.title, 'LuaPanda: Step?');
    assert.match(String(step.invocationMessage), /step_type: over/);
    assert.equal(prepare('get_breakpoints', {}).confirmationMessages, undefined);

    setSetting('luapanda.languageModelTools.confirmChanges', false);
    assert.equal(prepare('step_execution', { thread_id: 1 }).confirmationMessages, undefined);
  });
});
