/**
 * What a new user meets first, in the real extension host: Run → Add Configuration… in a folder
 * without launch.json (each starter once, and the Doctor content with them), the Doctor's report (read-only: F5 afterwards starts
 * without a "Save As" prompt), a launch that fails (said once, in the dialog), the panel and the
 * Command Palette following the server's state, and a killed stdio client no longer counted.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { parse } from 'jsonc-parser';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/extension/extension';
import { EXTENSION_ID, extensionApi, waitUntil, workspaceFile, workspaceFolder } from './helpers';

const port = Number(process.env.E2E_MCP_PORT);

/** `work`, or a failure naming `what` once `ms` have passed (a prompt nobody answers hangs). */
async function within<T>(work: Thenable<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      Promise.resolve(work),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function sessionCount(api: ExtensionApi): number {
  const state = api.manager.state;
  return state.kind === 'running' ? state.sessions : -1;
}

describe('a new user', () => {
  let api: ExtensionApi;

  before(async () => {
    api = await extensionApi();
    await waitUntil(() => api.manager.state.kind === 'running', 20_000, 'the MCP server');
  });

  afterEach(async () => {
    if (vscode.debug.activeDebugSession) await vscode.debug.stopDebugging();
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('Run → Add Configuration… without a launch.json writes each starter configuration once', async () => {
    const launchJson = workspaceFile(path.join('.vscode', 'launch.json'));
    const original = fs.readFileSync(launchJson, 'utf8');
    const starters = (
      vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON as {
        contributes: { debuggers: { initialConfigurations: { name: string }[] }[] };
      }
    ).contributes.debuggers[0].initialConfigurations.map((c) => c.name);
    fs.rmSync(launchJson);
    try {
      // With a Lua file in the editor, VS Code picks the luapanda debugger without asking, writes
      // its initial configurations (package.json's, then what configuration providers add) and
      // opens the new file.
      await vscode.window.showTextDocument(vscode.Uri.file(workspaceFile('main.lua')));
      await within(
        vscode.commands.executeCommand('workbench.action.debug.configure'),
        20_000,
        'Open launch.json',
      );
      await waitUntil(() => fs.existsSync(launchJson), 10_000, 'the new launch.json');
      const written = parse(fs.readFileSync(launchJson, 'utf8')) as {
        configurations: { name: string; type: string }[];
      };
      const names = written.configurations.map((c) => c.name);
      assert.deepEqual(names, starters, 'each starter once, in order');
      assert.ok(written.configurations.every((c) => c.type === 'luapanda'));
      // The Doctor judges what Add Configuration wrote as VS Code runs it: `${file}` is fine here.
      await vscode.window.showTextDocument(vscode.Uri.file(workspaceFile('main.lua')));
      const report = (await vscode.commands.executeCommand('luapanda.doctor')) as string;
      assert.doesNotMatch(report, /✗ "Lua: launch the current file"/, report);
      assert.match(report, /✓ "Lua: launch the current file"/, report);
    } finally {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      fs.writeFileSync(launchJson, original);
      await waitUntil(
        () =>
          (
            vscode.workspace
              .getConfiguration('launch', workspaceFolder().uri)
              .get<{ name: string }[]>('configurations') ?? []
          ).some((c) => c.name === 'Lua: loop'),
        10_000,
        'the original launch.json back',
      );
    }
  });

  it('the Doctor opens a read-only report: nothing unsaved, and F5 starts without a save prompt', async () => {
    const report = (await vscode.commands.executeCommand('luapanda.doctor')) as string;
    const editor = vscode.window.activeTextEditor;
    assert.equal(editor?.document.uri.scheme, 'luapanda-doc');
    assert.equal(editor?.document.getText(), report);
    assert.equal(editor?.document.languageId, 'markdown');
    const unsaved = vscode.workspace.textDocuments.filter((d) => d.isUntitled || d.isDirty);
    assert.deepEqual(
      unsaved.map((d) => d.uri.toString()),
      [],
      'no Untitled or dirty document',
    );
    // F5 saves the active group first (debug.saveBeforeStart): an Untitled buffer there would
    // open "Save As", and the session would not start until someone answered it.
    assert.notEqual(vscode.workspace.getConfiguration('debug').get('saveBeforeStart'), 'none');
    const started = await within(
      vscode.debug.startDebugging(workspaceFolder(), 'Lua: loop'),
      20_000,
      'F5 with the Doctor report open',
    );
    assert.equal(started, true);
    await vscode.debug.stopDebugging();

    // Run again: the same read-only document, with the new report.
    await vscode.commands.executeCommand('luapanda.doctor');
    const reports = vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'luapanda-doc');
    assert.equal(reports.length, 1);
  });

  it('a guide the walkthrough links to opens from the extension, as a Markdown preview', async () => {
    const file = (await vscode.commands.executeCommand('luapanda.openGuide', 'Engines')) as string;
    assert.equal(path.basename(file), 'Engines.md');
    await waitUntil(
      () =>
        vscode.window.tabGroups.all
          .flatMap((g) => g.tabs)
          .some((t) => /Preview Engines\.md/.test(t.label)),
      10_000,
      'the preview of Engines.md',
    );
  });

  it('a launch that fails is said once: in the dialog, not again as a notification', async () => {
    const sent: DebugProtocol.ProtocolMessage[] = [];
    const tracker = vscode.debug.registerDebugAdapterTrackerFactory('luapanda', {
      createDebugAdapterTracker: () => ({
        onDidSendMessage: (message: DebugProtocol.ProtocolMessage) => sent.push(message),
      }),
    });
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['a bad luaPath', { luaPath: '/no/such/lua5.4' }, /"\/no\/such\/lua5\.4" set in "luaPath"/],
      [
        'a typo in program',
        { program: '${workspaceFolder}/mian.lua' },
        /The program ".*mian\.lua" does not exist/,
      ],
    ];
    try {
      for (const [name, attributes, message] of cases) {
        sent.length = 0;
        let refused: string | undefined;
        const started = await within(
          vscode.debug
            .startDebugging(workspaceFolder(), {
              type: 'luapanda',
              request: 'launch',
              name,
              program: '${workspaceFolder}/main.lua',
              cwd: '${workspaceFolder}',
              ...attributes,
            })
            .then(
              (ok) => ok,
              (error: Error) => {
                refused = error.message;
                return false;
              },
            ),
          20_000,
          `the failed launch (${name})`,
        );
        assert.equal(started, false, name);
        // An extension test host refuses dialogs with an error that quotes them: that is the
        // dialog the user sees (with "Open launch.json").
        assert.match(refused ?? '', /refused to show dialog in tests/, name);
        assert.match(refused ?? '', message, name);
        const response = sent.find(
          (m): m is DebugProtocol.Response =>
            m.type === 'response' && (m as DebugProtocol.Response).command === 'launch',
        );
        assert.equal(response?.success, false, name);
        const error = (response?.body as { error?: DebugProtocol.Message } | undefined)?.error;
        // What VS Code would add as notifications: `showUser: true` and `important` output.
        const notifications =
          (error?.showUser === true ? 1 : 0) +
          sent.filter(
            (m) =>
              m.type === 'event' &&
              (m as DebugProtocol.Event).event === 'output' &&
              (m as DebugProtocol.OutputEvent).body.category === 'important',
          ).length;
        assert.equal(notifications, 0, `${name}: ${JSON.stringify(sent)}`);
      }
    } finally {
      tracker.dispose();
    }
  });

  it('the panel and the Command Palette follow the server state: stopped, then running', async () => {
    const commands = (): string[] => api.panelActions().map((a) => a.command);
    const portEntry = () => api.panelActions().find((a) => a.command === 'luapanda.mcp.changePort');
    try {
      await vscode.commands.executeCommand('luapanda.mcp.stop');
      await waitUntil(() => api.manager.state.kind === 'stopped', 10_000, 'the stop');
      assert.ok(commands().includes('luapanda.mcp.start'));
      assert.equal(commands()[0], 'luapanda.mcp.start', 'stopped, the first entry starts it');
      assert.ok(!commands().includes('luapanda.mcp.stop'));
      assert.ok(!commands().includes('luapanda.mcp.restart'));
      assert.ok(commands().includes('luapanda.doctor'), 'the Doctor is in the panel');
      assert.equal(portEntry()?.description, `port ${port}`);
      assert.equal(api.contextKeys()['luapanda.mcp.running'], false);
      assert.equal(api.contextKeys()['luapanda.mcp.state'], 'stopped');
    } finally {
      await vscode.commands.executeCommand('luapanda.mcp.start');
      await waitUntil(() => api.manager.state.kind === 'running', 10_000, 'the start');
    }
    assert.ok(!commands().includes('luapanda.mcp.start'), 'no Start while it runs');
    // Enter right after opening the panel runs its first entry: never Stop or Restart.
    assert.ok(
      !['luapanda.mcp.stop', 'luapanda.mcp.restart'].includes(commands()[0]),
      `the first entry is harmless: ${commands()[0]}`,
    );
    assert.ok(commands().includes('luapanda.mcp.stop'));
    assert.ok(commands().includes('luapanda.doctor'));
    assert.equal(portEntry()?.description, `now ${port}`);
    assert.equal(api.contextKeys()['luapanda.mcp.running'], true);
    assert.equal(api.contextKeys()['luapanda.mcp.state'], 'running');
  });

  it('a stdio client killed with SIGKILL is no longer counted, within seconds', async () => {
    const templates = await api.clientTemplates();
    const desktop = JSON.parse(templates.find((t) => t.id === 'claude-desktop')!.text);
    const server = desktop.mcpServers.luapanda as {
      command: string;
      args: string[];
      env?: Record<string, string>;
    };
    const before = sessionCount(api);
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: { ...(process.env as Record<string, string>), ...(server.env ?? {}) },
      stderr: 'ignore',
    });
    const client = new Client({ name: 'killed-client', version: '1.0.0' });
    await client.connect(transport);
    await client.callTool({ name: 'get_debug_state', arguments: {} });
    await waitUntil(() => sessionCount(api) === before + 1, 10_000, 'the client session counted');
    assert.match(String(api.statusBar.server.tooltip), new RegExp(`${before + 1} client session`));
    // Give the bridge its event stream, as a client that stays connected holds one.
    await new Promise((resolve) => setTimeout(resolve, 500));
    process.kill(transport.pid!, 'SIGKILL');
    await waitUntil(() => sessionCount(api) === before, 15_000, 'the killed session to go');
    assert.match(String(api.statusBar.server.tooltip), new RegExp(`\\(${before} client session`));
    await client.close().catch(() => undefined);
  });
});
