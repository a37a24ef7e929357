/**
 * The VS Code extension's entry point: the composition. The `luapanda` debugger (inline adapter),
 * the MCP tools over VS Code's debug API (so the agent and the human share every session), the
 * MCP server manager with its status bar items and quick-pick panel, the editor MCP registrations,
 * the language-model tools and the commands. Each job lives in its own module; `activate` only
 * wires them, and returns a small API that the extension-host tests use to look inside.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SessionMonitor } from '../mcp/sessionMonitor';
import { showAgentWaiting } from './mcpServer/agentWaiting';
import { BreakpointDiagnostics } from './debug/breakpointDiagnostics';
import { bridgeInput, registerClientConfigCommands } from './clientConfigs/clientConfigCommands';
import { clientTemplates } from './clientConfigs/clientConfigs';
import { registerLuaDebugger } from './debug/debugAdapter';
import { registerDebugCommands } from './debug/debugCommands';
import { registerOpenGuide } from './guides/openGuide';
import { LanguageModelTools } from './agentTools/languageModelTools';
import { McpRegistration } from './mcpServer/mcpRegistration';
import { registerMcpServerCommands } from './mcpServer/mcpServerCommands';
import { ContextKeys, StatusBar, panelActions } from './mcpServer/panel';
import { ReadOnlyDocuments } from './readOnlyDocs';
import { McpServerManager } from './mcpServer/serverManager';
import { showServerStatus } from './mcpServer/serverStatus';
import { readSettings } from './settings';
import { watchSettings } from './settingsWatcher';
import { PortHints } from './mcpServer/portHint';
import { toolServerFactory } from './agentTools/toolServer';
import { VscodeDebugChannel } from './agentTools/vscodeChannel';

export interface ExtensionApi {
  readonly manager: McpServerManager;
  readonly channel: VscodeDebugChannel;
  readonly monitor: SessionMonitor;
  readonly statusBar: StatusBar;
  readonly registration: McpRegistration;
  /** The debugger tools as VS Code language-model tools (Copilot without MCP). */
  readonly languageModelTools: LanguageModelTools;
  /** The panel's entries right now (what the quick pick offers). */
  panelActions(): { label: string; command: string; description?: string }[];
  /** The context keys as last set (what the `when` clauses of the Command Palette see). */
  contextKeys(): Record<string, unknown>;
  /** The moves of the MCP port this window told of (copied client configurations name the old). */
  portHints(): readonly { readonly from: number; readonly to: number }[];
  /** Where the Doctor's report and client snippets are shown (read-only virtual documents). */
  readonly documents: ReadOnlyDocuments;
  /** The client configuration templates for the current URL and token. */
  clientTemplates(): Promise<ReturnType<typeof clientTemplates>>;
}

let disposeAll: (() => Promise<void>) | undefined;

export function activate(context: vscode.ExtensionContext): ExtensionApi {
  const version = String(context.extension.packageJSON.version);
  const log = vscode.window.createOutputChannel('LuaPanda MCP', { log: true });
  context.subscriptions.push(log);
  log.info(`LuaPanda MCP Debugger ${version} activated`);

  // The debugger itself.
  const documents = new ReadOnlyDocuments();
  context.subscriptions.push(
    ...registerLuaDebugger(context.asAbsolutePath(path.join('dist', 'lua')), documents),
    new BreakpointDiagnostics(),
  );

  // The agent's side: the tools over VS Code's sessions, over HTTP and as language-model tools.
  const channel = new VscodeDebugChannel();
  const monitor = new SessionMonitor(channel);
  const createServer = toolServerFactory({ channel, monitor, log });
  const manager = new McpServerManager({
    workspace: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? null,
    settings: () => readSettings(),
    createServer,
    controlDir: context.globalStorageUri.fsPath,
    log: (line) => log.info(line),
    interrupt: (reason) => void monitor.interrupt(reason),
  });
  const registration = new McpRegistration((line) => log.warn(line));
  const languageModelTools = new LanguageModelTools({
    createServer,
    enabled: () => readSettings().languageModelTools,
    confirmChanges: () => readSettings().confirmLanguageModelToolChanges,
    log: (line) => log.info(line),
  });

  // What the human sees of it.
  const statusBar = new StatusBar();
  const contextKeys = new ContextKeys();
  context.subscriptions.push(
    documents,
    statusBar,
    registration,
    languageModelTools,
    showServerStatus({ manager, monitor, statusBar, contextKeys, registration, log, version }),
    showAgentWaiting({ monitor, statusBar, contextKeys, serverState: () => manager.state }),
  );

  // The commands, and the settings that act when changed.
  const portHints = new PortHints();
  const clientConfig = { context, manager, documents, log };
  context.subscriptions.push(
    ...registerMcpServerCommands({ manager, monitor, log }),
    ...registerClientConfigCommands(clientConfig),
    ...registerDebugCommands({ context, channel, manager, documents, log }),
    registerOpenGuide(context),
    watchSettings(manager, languageModelTools, portHints),
  );

  void manager.initialize();

  disposeAll = async () => {
    await manager.dispose();
    monitor.dispose();
    channel.dispose();
  };

  return {
    manager,
    channel,
    monitor,
    statusBar,
    registration,
    languageModelTools,
    panelActions: () =>
      panelActions(
        manager.state,
        readSettings().autoStart,
        monitor.waiting,
        readSettings().port,
      ).map((a) => ({ label: a.label, command: a.command, description: a.description })),
    contextKeys: () => contextKeys.values(),
    portHints: () => portHints.shown,
    documents,
    clientTemplates: async () => clientTemplates(await bridgeInput(clientConfig)),
  };
}

export async function deactivate(): Promise<void> {
  const dispose = disposeAll;
  disposeAll = undefined;
  await dispose?.();
}
