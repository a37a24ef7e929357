/**
 * The debugger tools as VS Code language-model tools in a real extension host: a call made
 * through `vscode.lm.invokeTool` (as Copilot's agent mode makes it, here without a chat, so with
 * no invocation token) sets a breakpoint and starts a Lua session, and VS Code's own debug API
 * shows the same stop; the setting switches the tools off and on live.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/extension/extension';
import { TOOLS } from '../../../src/mcp/server';
import {
  StopRecorder,
  extensionApi,
  markedLine,
  topFrame,
  waitUntil,
  workspaceFile,
} from './helpers';

type Result = Record<string, unknown> & { status: string };

/** Calls a language-model tool as an agent outside a chat would, and parses its text. */
async function invokeTool(name: string, input: object = {}): Promise<Result> {
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  const text = result.content
    .filter(
      (part): part is vscode.LanguageModelTextPart => part instanceof vscode.LanguageModelTextPart,
    )
    .map((part) => part.value)
    .join('');
  return JSON.parse(text) as Result;
}

function setting(key: string, value: unknown): Thenable<void> {
  return vscode.workspace
    .getConfiguration('luapanda')
    .update(key, value, vscode.ConfigurationTarget.Global);
}

describe('language-model tools (Copilot without MCP) in a real extension host', () => {
  let api: ExtensionApi;
  const recorder = new StopRecorder();
  const addLine = markedLine('main.lua', 'add');

  before(async () => {
    api = await extensionApi();
    vscode.debug.removeBreakpoints(vscode.debug.breakpoints);
    if (vscode.debug.activeDebugSession) await vscode.debug.stopDebugging();
    // Outside a chat, VS Code asks a state-changing call's confirmation in a modal dialog that
    // no one clicks here; the setting turns the confirmation off.
    await setting('languageModelTools.confirmChanges', false);
  });

  after(async () => {
    recorder.dispose();
    await setting('languageModelTools.confirmChanges', undefined);
    await setting('languageModelTools.enabled', undefined);
    vscode.debug.removeBreakpoints(vscode.debug.breakpoints);
    if (vscode.debug.activeDebugSession) await vscode.debug.stopDebugging();
  });

  it('registers every MCP tool with vscode.lm under its MCP name', () => {
    assert.equal(api.languageModelTools.supported, true);
    assert.deepEqual(
      api.languageModelTools.registered,
      TOOLS.map((t) => t.name),
    );
    const listed = new Set(vscode.lm.tools.map((t) => t.name));
    for (const tool of TOOLS) assert.ok(listed.has(tool.name), `${tool.name} in vscode.lm.tools`);
  });

  it("a tool call starts a Lua session and stops where VS Code's debug API shows it", async () => {
    const set = await invokeTool('set_breakpoint', { file_path: 'main.lua', line_number: addLine });
    assert.equal(set.status, 'success', JSON.stringify(set));
    const inEditor = vscode.debug.breakpoints.filter(
      (b): b is vscode.SourceBreakpoint =>
        b instanceof vscode.SourceBreakpoint &&
        b.location.uri.fsPath === workspaceFile('main.lua') &&
        b.location.range.start.line === addLine - 1,
    );
    assert.equal(inEditor.length, 1, "the tool's breakpoint is the editor's");

    const before = recorder.stops.length;
    const started = await invokeTool('start_debugging', { configuration_name: 'Lua: main' });
    assert.equal(started.status, 'stopped', JSON.stringify(started));
    const stop = started.stop_event_data as { line: number; thread_id: number; reason: string };
    assert.equal(stop.line, addLine);

    const seen = await recorder.next(before);
    const session = vscode.debug.activeDebugSession;
    assert.ok(session, 'VS Code has an active debug session');
    assert.equal(session.type, 'luapanda');
    assert.equal(session.id, started.session_id, 'the tool and VS Code speak of one session');
    assert.equal(seen.sessionId, session.id);
    assert.equal(seen.body.reason, 'breakpoint');
    assert.equal(seen.body.threadId, stop.thread_id);
    await waitUntil(
      () => vscode.debug.activeStackItem instanceof vscode.DebugStackFrame,
      10_000,
      'the stopped frame to be focused in VS Code',
    );
    const item = vscode.debug.activeStackItem as vscode.DebugStackFrame;
    assert.equal(item.session.id, session.id);
    assert.equal(item.threadId, stop.thread_id);
    assert.equal((await topFrame(session, stop.thread_id)).line, addLine);

    const state = await invokeTool('get_debug_state');
    assert.equal(state.state, 'Stopped');
    const ended = await invokeTool('stop_debugging');
    assert.equal(ended.status, 'success', JSON.stringify(ended));
    await waitUntil(() => vscode.debug.activeDebugSession === undefined, 20_000, 'the end');
  });

  it('the setting switches the tools off and on at once', async () => {
    await setting('languageModelTools.enabled', false);
    await waitUntil(
      () => api.languageModelTools.registered.length === 0,
      10_000,
      'the tools to be unregistered',
    );
    await assert.rejects(invokeTool('get_breakpoints'));
    await setting('languageModelTools.enabled', true);
    await waitUntil(
      () => api.languageModelTools.registered.length === TOOLS.length,
      10_000,
      'the tools to be registered again',
    );
    const listed = await invokeTool('get_breakpoints');
    assert.equal(listed.status, 'success', JSON.stringify(listed));
  });
});
