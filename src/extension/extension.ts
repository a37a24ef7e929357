/**
 * The VS Code extension's entry point: the composition. The `luapanda` debugger (inline adapter),
 * the MCP tools over VS Code's debug API (so the agent and the human share every session), the
 * MCP server manager with its status bar item and quick-pick panel, the tool-call log and the
 * code-execution policy, the editor MCP registrations, the commands, and hot reload from the
 * editor. `activate` returns a
 * small API that the extension-host tests use to look inside.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BreakpointDiagnostics } from './breakpointDiagnostics';
import { createMcpServer } from '../mcp/server';
import { SessionMonitor } from '../mcp/sessionMonitor';
import { ToolContext, ToolSettings } from '../mcp/tools/context';
import { fetchHealth } from '../mcp/transport/http';
import { createApprover } from './approval';
import { clientTemplate, clientTemplates, TemplateInput } from './clientConfigs';
import { copyRuntime } from './copyRuntime';
import { registerLuaDebugger } from './debugAdapter';
import { gatherFacts, renderReport } from './doctor';
import { HotReloadOptions, hotReloadCommand, reloadOnSave } from './hotReload';
import { LanguageModelTools } from './languageModelTools';
import { McpRegistration } from './mcpRegistration';
import { COMMANDS, ContextKeys, StatusBar, describeState, panelActions } from './panel';
import { ReadOnlyDocuments } from './readOnlyDocs';
import { McpServerManager, ServerState, validatePort } from './serverManager';
import { readSettings, updateSetting } from './settings';
import { formatToolCall, observeToolCalls } from './toolCallLog';
import { VscodeDebugChannel } from './vscodeChannel';
import { probeLocalPort } from './doctor';

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
  /** Where the Doctor's report and client snippets are shown (read-only virtual documents). */
  readonly documents: ReadOnlyDocuments;
  /** The client configuration templates for the current URL and token. */
  clientTemplates(): Promise<ReturnType<typeof clientTemplates>>;
}

let disposeAll: (() => Promise<void>) | undefined;

/** File extensions of the client snippets' languages, for their read-only documents' names. */
const EXTENSIONS: Record<'json' | 'toml' | 'shellscript', string> = {
  json: 'json',
  toml: 'toml',
  shellscript: 'sh',
};

export function activate(context: vscode.ExtensionContext): ExtensionApi {
  const log = vscode.window.createOutputChannel('LuaPanda MCP', { log: true });
  context.subscriptions.push(log);
  log.info(`LuaPanda MCP Debugger ${String(context.extension.packageJSON.version)} activated`);

  context.subscriptions.push(
    ...registerLuaDebugger(context.asAbsolutePath(path.join('dist', 'lua'))),
    new BreakpointDiagnostics(),
  );

  const channel = new VscodeDebugChannel();
  const monitor = new SessionMonitor(channel);
  const settings: ToolSettings = {
    get defaultTimeoutSeconds() {
      return readSettings().defaultTimeoutSeconds;
    },
    get allowOutsideWorkspace() {
      return readSettings().allowOutsideWorkspace;
    },
  };
  const toolContext: ToolContext = {
    channel,
    monitor,
    settings,
    approve: createApprover(
      () => readSettings().codeExecution,
      (line) => log.info(line),
    ),
  };

  const statusBar = new StatusBar();
  const contextKeys = new ContextKeys();
  const documents = new ReadOnlyDocuments();
  context.subscriptions.push(documents);
  let inFlight = 0;
  let waitingPoll: NodeJS.Timeout | undefined;
  const refreshWaiting = (): void => {
    statusBar.setWaiting(monitor.waiting);
    contextKeys.update(manager.state, monitor.waiting);
    if (inFlight === 0 && waitingPoll) {
      clearInterval(waitingPoll);
      waitingPoll = undefined;
    }
  };
  const observer = {
    started: (): void => {
      inFlight++;
      waitingPoll ??= setInterval(refreshWaiting, 250);
    },
    ended: (call: Parameters<typeof formatToolCall>[0]): void => {
      inFlight = Math.max(0, inFlight - 1);
      log.info(`[agent] ${formatToolCall(call)}`);
      refreshWaiting();
    },
  };

  // One factory for every way in (HTTP, language-model tools): one tool context, one log.
  const createServer = () => observeToolCalls(createMcpServer(toolContext), observer);
  const workspace = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? null;
  const manager = new McpServerManager({
    workspace,
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
  const version = String(context.extension.packageJSON.version);
  let lastError: string | undefined;
  const onState = (state: ServerState): void => {
    statusBar.render(state);
    contextKeys.update(state, monitor.waiting);
    const served = state.kind === 'running' || state.kind === 'elsewhere';
    registration.update(
      served ? { url: manager.url(), token: readSettings().token, version } : undefined,
    );
    if (state.kind === 'error' && state.message !== lastError) {
      lastError = state.message;
      log.error(state.message);
      void showServerError(state);
    } else if (state.kind !== 'error') {
      lastError = undefined;
    }
  };
  manager.onDidChangeState(onState);
  onState(manager.state);

  const bridgeInput = async (): Promise<TemplateInput> => {
    const source = context.asAbsolutePath(path.join('dist', 'cli', 'luapanda-mcp.js'));
    const target = path.join(context.globalStorageUri.fsPath, 'bin', 'luapanda-mcp.js');
    try {
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.copyFile(source, target);
    } catch (e) {
      log.warn(`could not copy the stdio bridge to ${target}: ${(e as Error).message}`);
    }
    const electron = process.versions.electron !== undefined;
    return {
      url: manager.url(),
      token: readSettings().token,
      bridge: {
        command: process.execPath,
        script: target,
        ...(electron ? { env: { ELECTRON_RUN_AS_NODE: '1' } } : {}),
      },
    };
  };

  const changePort = async (given?: number): Promise<ServerState | undefined> => {
    const current = readSettings().port;
    let text: string | undefined = given === undefined ? undefined : String(given);
    if (text === undefined) {
      text = await vscode.window.showInputBox({
        title: 'LuaPanda MCP: port of the MCP server',
        value: String(current),
        prompt: 'The MCP server listens on http://127.0.0.1:<port>/mcp',
        validateInput: (value) => validatePort(value),
      });
    }
    if (text === undefined) return undefined;
    const problem = validatePort(text);
    if (problem) {
      void vscode.window.showErrorMessage(`LuaPanda MCP: ${problem}`);
      return undefined;
    }
    const port = Number(text);
    if (
      port !== current &&
      !(await fetchHealth(port)) &&
      (await probeLocalPort(port)) === 'listening'
    ) {
      const choice = await vscode.window.showWarningMessage(
        `Port ${port} is in use by another program. Choose another port?`,
        'Choose Another Port',
        'Keep ' + String(current),
      );
      if (choice === 'Choose Another Port' && given === undefined) return changePort();
      return undefined;
    }
    if (port !== current) await updateSetting('mcp.port', port);
    return manager.state;
  };

  const showServerError = async (state: Extract<ServerState, { kind: 'error' }>): Promise<void> => {
    const choice = await vscode.window.showErrorMessage(
      `LuaPanda MCP: ${state.message}`,
      'Change Port…',
      'Retry',
      'Show Log',
    );
    if (choice === 'Change Port…') await changePort();
    else if (choice === 'Retry') await manager.start();
    else if (choice === 'Show Log') log.show();
  };

  const register = (command: string, handler: (...args: never[]) => unknown): void => {
    context.subscriptions.push(vscode.commands.registerCommand(command, handler));
  };
  register(COMMANDS.start, () => manager.start());
  register(COMMANDS.stop, () => manager.stop());
  register(COMMANDS.restart, () => manager.restart());
  register(COMMANDS.status, () => {
    const text = describeState(manager.state);
    void vscode.window.showInformationMessage(`LuaPanda MCP server: ${text}`);
    return manager.state;
  });
  register(COMMANDS.panel, async () => {
    const picked = await vscode.window.showQuickPick(
      panelActions(manager.state, readSettings().autoStart, monitor.waiting, readSettings().port),
      { title: `LuaPanda MCP — ${describeState(manager.state)}`, placeHolder: 'Choose an action' },
    );
    if (picked) await vscode.commands.executeCommand(picked.command);
  });
  register(COMMANDS.changePort, (port?: number) => changePort(port));
  register(COMMANDS.toggleAutoStart, async () => {
    const next = !readSettings().autoStart;
    await updateSetting('mcp.autoStart', next);
    void vscode.window.showInformationMessage(
      `LuaPanda MCP: auto-start is ${next ? 'on' : 'off'}.`,
    );
    return next;
  });
  register(COMMANDS.copyConfig, async (clientId?: string) => {
    const input = await bridgeInput();
    let id = clientId;
    if (id === undefined) {
      const picked = await vscode.window.showQuickPick(
        clientTemplates(input).map((t) => ({ label: t.label, description: t.where, id: t.id })),
        { title: 'Copy the MCP configuration for…' },
      );
      id = picked?.id;
    }
    if (id === undefined) return undefined;
    const template = clientTemplate(id, input);
    await vscode.env.clipboard.writeText(template.text);
    void vscode.window
      .showInformationMessage(
        `Copied the ${template.label} configuration. Paste it into ${template.where}.`,
        'Show It',
      )
      .then(async (choice) => {
        if (choice !== 'Show It') return;
        await documents.show(
          `${template.label} configuration.${EXTENSIONS[template.language]}`,
          template.text,
          template.language,
        );
      });
    return template.text;
  });
  register(COMMANDS.showLog, () => log.show());
  register(COMMANDS.interrupt, () => {
    const count = monitor.interrupt('The user interrupted the wait in VS Code.');
    statusBar.setWaiting(monitor.waiting);
    contextKeys.update(manager.state, monitor.waiting);
    log.info(`interrupted ${count} waiting agent call(s)`);
    return count;
  });
  register(COMMANDS.copyRuntime, (target?: string) =>
    copyRuntime(context.asAbsolutePath(path.join('dist', 'lua')), target, log),
  );
  register(COMMANDS.doctor, async () => {
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    const breakpoints = channel.breakpoints
      .list()
      .filter((b) => /\.(lua|txt|bytes)$/i.test(b.filePath))
      .map((b) => ({
        file: folder ? path.relative(folder, b.filePath) : b.filePath,
        line: b.line,
        verified: b.verified,
        message: b.message,
        inWorkspace: folder ? !path.relative(folder, b.filePath).startsWith('..') : false,
      }));
    const facts = await gatherFacts({
      workspace: folder,
      runtimeDir: context.asAbsolutePath(path.join('dist', 'lua')),
      breakpoints,
      liveLuaSessions: channel.sessions().filter((s) => s.type === 'luapanda').length,
      mcp: describeState(manager.state),
    });
    const report = renderReport(facts);
    await documents.show('LuaPanda Doctor.md', report, 'markdown');
    return report;
  });

  const hotReload: HotReloadOptions = {
    channel,
    onSave: () => readSettings().hotReloadOnSave,
    log: (line) => log.info(line),
  };
  register(COMMANDS.hotReloadFile, (resource?: unknown) => hotReloadCommand(hotReload, resource));

  context.subscriptions.push(
    vscode.workspace.onDidSaveTextDocument((document) => void reloadOnSave(hotReload, document)),
    statusBar,
    registration,
    languageModelTools,
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('luapanda.languageModelTools.enabled')) {
        languageModelTools.refresh();
      }
      if (
        event.affectsConfiguration('luapanda.mcp.port') ||
        event.affectsConfiguration('luapanda.mcp.token') ||
        event.affectsConfiguration('luapanda.mcp.autoStart')
      ) {
        void manager.settingsChanged();
      }
    }),
  );

  void manager.initialize();

  disposeAll = async () => {
    if (waitingPoll) clearInterval(waitingPoll);
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
    documents,
    clientTemplates: async () => clientTemplates(await bridgeInput()),
  };
}

export async function deactivate(): Promise<void> {
  const dispose = disposeAll;
  disposeAll = undefined;
  await dispose?.();
}
