/**
 * Follows the MCP server's state for the human and the editors: the status bar item, the context
 * keys, the MCP registrations the editor's agents read (only while a server serves), and an error
 * message with its remedies (change port, retry, show the log) once per new error.
 */
import * as vscode from 'vscode';
import { SessionMonitor } from '../../mcp/sessionMonitor';
import { changePort } from './changePort';
import { McpRegistration } from './mcpRegistration';
import { ContextKeys, StatusBar } from './panel';
import { McpServerManager, ServerState } from './serverManager';
import { readSettings } from '../settings';

export interface ServerStatusView {
  readonly manager: McpServerManager;
  readonly monitor: SessionMonitor;
  readonly statusBar: StatusBar;
  readonly contextKeys: ContextKeys;
  readonly registration: McpRegistration;
  readonly log: vscode.LogOutputChannel;
  /** The extension's version, for the MCP registrations. */
  readonly version: string;
}

export function showServerStatus(view: ServerStatusView): vscode.Disposable {
  const { manager, log } = view;
  let lastError: string | undefined;
  const onState = (state: ServerState): void => {
    view.statusBar.render(state);
    view.contextKeys.update(state, view.monitor.waiting);
    const served = state.kind === 'running' || state.kind === 'elsewhere';
    view.registration.update(
      served
        ? { url: manager.url(), token: readSettings().token, version: view.version }
        : undefined,
    );
    // One message per error, not one per state change that repeats it.
    if (state.kind === 'error' && state.message !== lastError) {
      lastError = state.message;
      log.error(state.message);
      void showServerError(view, state);
    } else if (state.kind !== 'error') {
      lastError = undefined;
    }
  };
  const subscription = manager.onDidChangeState(onState);
  onState(manager.state);
  return subscription;
}

async function showServerError(
  { manager, log }: ServerStatusView,
  state: Extract<ServerState, { kind: 'error' }>,
): Promise<void> {
  const choice = await vscode.window.showErrorMessage(
    `LuaPanda MCP: ${state.message}`,
    'Change Port…',
    'Retry',
    'Show Log',
  );
  if (choice === 'Change Port…') await changePort(manager);
  else if (choice === 'Retry') await manager.start();
  else if (choice === 'Show Log') log.show();
}
