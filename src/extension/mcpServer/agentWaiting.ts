/**
 * Shows the human when an agent's tool call waits on the debugger: the "agent waiting" status bar
 * item and the context key that offers Interrupt. Follows the session monitor's waiting count as
 * it changes (an event, no polling), so the item appears when a wait begins and goes when it ends.
 */
import type * as vscode from 'vscode';
import { SessionMonitor } from '../../mcp/sessionMonitor';
import { ContextKeys, StatusBar } from './panel';
import { ServerState } from './serverManager';

export interface AgentWaitingView {
  readonly monitor: SessionMonitor;
  readonly statusBar: StatusBar;
  readonly contextKeys: ContextKeys;
  /** The server's state now: the context keys are set for state and waiting together. */
  readonly serverState: () => ServerState;
}

export function showAgentWaiting(view: AgentWaitingView): vscode.Disposable {
  const render = (waiting: number): void => {
    view.statusBar.setWaiting(waiting);
    view.contextKeys.update(view.serverState(), waiting);
  };
  render(view.monitor.waiting);
  return view.monitor.onDidChangeWaiting(render);
}
