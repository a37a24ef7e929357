/**
 * The command modules together register every command the extension contributes (package.json's
 * list is checked against COMMANDS in contribution.test.ts), each exactly once, with a stubbed
 * `vscode` whose `registerCommand` refuses a duplicate as VS Code does.
 */
import { Uri, registeredCommands, resetVscode, vscode } from './vscodeStub';
import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as vscodeTypes from 'vscode';
import { SessionMonitor } from '../../src/mcp/sessionMonitor';
import { registerClientConfigCommands } from '../../src/extension/clientConfigs/clientConfigCommands';
import { registerDebugCommands } from '../../src/extension/debug/debugCommands';
import { registerOpenGuide } from '../../src/extension/guides/openGuide';
import { registerMcpServerCommands } from '../../src/extension/mcpServer/mcpServerCommands';
import { COMMANDS } from '../../src/extension/mcpServer/panel';
import { ReadOnlyDocuments } from '../../src/extension/readOnlyDocs';
import { McpServerManager } from '../../src/extension/mcpServer/serverManager';
import { VscodeDebugChannel } from '../../src/extension/agentTools/vscodeChannel';

describe('extension: command modules', () => {
  beforeEach(() => resetVscode());

  it('register every contributed command, once', () => {
    const channel = new VscodeDebugChannel();
    const monitor = new SessionMonitor(channel);
    const documents = new ReadOnlyDocuments();
    const manager = new McpServerManager({
      workspace: null,
      settings: () => ({ port: 6009, autoStart: false }),
      createServer: () => assert.fail('no server is started here'),
      controlDir: os.tmpdir(),
      log: () => undefined,
      interrupt: () => undefined,
    });
    const context = {
      asAbsolutePath: (relative: string) => path.join(os.tmpdir(), relative),
      globalStorageUri: Uri.file(os.tmpdir()),
    } as unknown as vscodeTypes.ExtensionContext;
    const log = vscode.window.createOutputChannel('test', {
      log: true,
    }) as unknown as vscodeTypes.LogOutputChannel;
    const disposables = [
      ...registerMcpServerCommands({ manager, monitor, log }),
      ...registerClientConfigCommands({ context, manager, documents, log }),
      ...registerDebugCommands({ context, channel, manager, documents, log }),
      registerOpenGuide(context),
    ];
    try {
      assert.deepEqual([...registeredCommands.keys()].sort(), Object.values(COMMANDS).sort());
    } finally {
      for (const disposable of disposables) disposable.dispose();
      documents.dispose();
      monitor.dispose();
      channel.dispose();
    }
    assert.equal(registeredCommands.size, 0, 'each registration is disposed with its module');
  });
});
