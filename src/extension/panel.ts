/**
 * What the human sees of the MCP server and the agent: the status bar item (right side) with the
 * server's state, a second item while an agent waits on the debugger (click: interrupt the wait),
 * and the quick-pick control panel the first item opens.
 */
import * as vscode from 'vscode';
import { ServerState } from './serverManager';

export const COMMANDS = {
  start: 'luapanda.mcp.start',
  stop: 'luapanda.mcp.stop',
  restart: 'luapanda.mcp.restart',
  status: 'luapanda.mcp.status',
  panel: 'luapanda.mcp.showPanel',
  changePort: 'luapanda.mcp.changePort',
  toggleAutoStart: 'luapanda.mcp.toggleAutoStart',
  copyConfig: 'luapanda.mcp.copyClientConfig',
  showLog: 'luapanda.mcp.showLog',
  interrupt: 'luapanda.mcp.interruptAgent',
  copyRuntime: 'luapanda.copyRuntime',
  doctor: 'luapanda.doctor',
} as const;

/** One line saying what the server does, for the status command and tooltips. */
export function describeState(state: ServerState): string {
  switch (state.kind) {
    case 'running':
      return `Running on ${state.url} (${state.sessions} client session${state.sessions === 1 ? '' : 's'}).`;
    case 'starting':
      return `Starting on port ${state.port}…`;
    case 'stopped':
      return 'Stopped.';
    case 'elsewhere':
      return `Served by another VS Code window on port ${state.port}${
        state.workspace ? ` (folder ${state.workspace})` : ''
      }${state.pid ? `, pid ${state.pid}` : ''}.`;
    case 'error':
      return `Error on port ${state.port}: ${state.message}`;
  }
}

export function statusText(state: ServerState): string {
  switch (state.kind) {
    case 'running':
      return `$(debug-alt) LuaPanda MCP :${state.port}`;
    case 'starting':
      return '$(loading~spin) LuaPanda MCP';
    case 'stopped':
      return '$(debug-disconnect) LuaPanda MCP: stopped';
    case 'elsewhere':
      return '$(window) LuaPanda MCP: other window';
    case 'error':
      return '$(error) LuaPanda MCP: error';
  }
}

export interface PanelAction extends vscode.QuickPickItem {
  readonly command: string;
}

/** The panel's entries for a state: what makes sense to do from there. */
export function panelActions(
  state: ServerState,
  autoStart: boolean,
  waiting: number,
): PanelAction[] {
  const actions: PanelAction[] = [];
  if (waiting > 0) {
    actions.push({
      label: '$(debug-stop) Interrupt the waiting agent',
      description: `${waiting} call${waiting === 1 ? '' : 's'} waiting on the debugger`,
      command: COMMANDS.interrupt,
    });
  }
  if (state.kind === 'running' || state.kind === 'starting') {
    actions.push(
      { label: '$(debug-stop) Stop the MCP server', command: COMMANDS.stop },
      { label: '$(debug-restart) Restart the MCP server', command: COMMANDS.restart },
    );
  } else {
    actions.push({
      label: '$(play) Start the MCP server',
      description: state.kind === 'elsewhere' ? 'takes it over from the other window' : undefined,
      command: COMMANDS.start,
    });
  }
  actions.push(
    {
      label: '$(plug) Change port…',
      description: `now ${'port' in state ? state.port : ''}`.trim(),
      command: COMMANDS.changePort,
    },
    {
      label: autoStart ? '$(check) Auto-start: on' : '$(circle-large-outline) Auto-start: off',
      description: 'click to toggle',
      command: COMMANDS.toggleAutoStart,
    },
    { label: '$(clippy) Copy client configuration…', command: COMMANDS.copyConfig },
    { label: '$(output) Show the log', command: COMMANDS.showLog },
  );
  return actions;
}

export class StatusBar implements vscode.Disposable {
  readonly server: vscode.StatusBarItem;
  readonly waiting: vscode.StatusBarItem;
  /** Whether the "agent waiting" item is shown (StatusBarItem cannot tell). */
  isWaitingShown = false;

  constructor() {
    this.server = vscode.window.createStatusBarItem(
      'luapanda.mcp.status',
      vscode.StatusBarAlignment.Right,
      100,
    );
    this.server.name = 'LuaPanda MCP server';
    this.server.command = COMMANDS.panel;
    this.waiting = vscode.window.createStatusBarItem(
      'luapanda.mcp.waiting',
      vscode.StatusBarAlignment.Right,
      101,
    );
    this.waiting.name = 'LuaPanda MCP agent';
    this.waiting.command = COMMANDS.interrupt;
    this.waiting.text = '$(sync~spin) Agent waiting…';
    this.waiting.tooltip = 'An AI agent waits on the debugger. Click to interrupt its wait.';
    this.waiting.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
  }

  render(state: ServerState): void {
    this.server.text = statusText(state);
    this.server.tooltip = `LuaPanda MCP server — ${describeState(state)}\nClick for the control panel.`;
    this.server.backgroundColor =
      state.kind === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    this.server.show();
  }

  setWaiting(count: number): void {
    if (count > 0) {
      this.waiting.text = `$(sync~spin) Agent waiting${count > 1 ? ` (${count})` : ''}…`;
      this.waiting.show();
    } else {
      this.waiting.hide();
    }
    this.isWaitingShown = count > 0;
  }

  dispose(): void {
    this.server.dispose();
    this.waiting.dispose();
  }
}
