/**
 * What the human sees of the MCP server and the agent: the status bar item (right side) with the
 * server's state, a second item while an agent waits on the debugger (click: interrupt the wait),
 * the quick-pick control panel the first item opens, and the context keys that show in the
 * Command Palette only the commands that make sense in the server's state (package.json
 * `menus.commandPalette` names them in `when` clauses).
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
  hotReloadFile: 'luapanda.hotReloadFile',
  openGuide: 'luapanda.openGuide',
} as const;

/** The context keys the extension sets (`setContext`), for `when` clauses in package.json. */
export const CONTEXT_KEYS = {
  /** This window's server runs or is starting: Stop and Restart apply, Start does not. */
  running: 'luapanda.mcp.running',
  /** The server state's kind: `stopped`, `starting`, `running`, `elsewhere` or `error`. */
  state: 'luapanda.mcp.state',
  /** An agent's tool call waits on the debugger: Interrupt applies. */
  agentWaiting: 'luapanda.mcp.agentWaiting',
} as const;

export type ContextValues = Record<(typeof CONTEXT_KEYS)[keyof typeof CONTEXT_KEYS], unknown>;

/** What the context keys say for a server state and a number of waiting agent calls. */
export function contextValues(state: ServerState, waiting: number): ContextValues {
  return {
    [CONTEXT_KEYS.running]: isServing(state),
    [CONTEXT_KEYS.state]: state.kind,
    [CONTEXT_KEYS.agentWaiting]: waiting > 0,
  };
}

/** Whether this window's server runs (or is starting): what Stop and Restart act on. */
export function isServing(state: ServerState): boolean {
  return state.kind === 'running' || state.kind === 'starting';
}

/** Sets the context keys through `setContext`, each only when its value changes. */
export class ContextKeys {
  private readonly current = new Map<string, unknown>();

  constructor(
    private readonly setContext: (key: string, value: unknown) => Thenable<unknown> = (k, v) =>
      vscode.commands.executeCommand('setContext', k, v),
  ) {}

  update(state: ServerState, waiting: number): void {
    for (const [key, value] of Object.entries(contextValues(state, waiting))) {
      if (this.current.has(key) && this.current.get(key) === value) continue;
      this.current.set(key, value);
      void this.setContext(key, value);
    }
  }

  /** The values last set, by key. */
  values(): Record<string, unknown> {
    return Object.fromEntries(this.current);
  }
}

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

/**
 * The panel's entries for a state: what makes sense to do from there. `configuredPort` is the
 * `luapanda.mcp.port` setting, shown when no server state names a port (stopped). The first entry
 * is what Enter picks right after the status bar was clicked: never one that stops the server or
 * an agent's wait (copying the client configuration while serving, starting while not); those
 * come last.
 */
export function panelActions(
  state: ServerState,
  autoStart: boolean,
  waiting: number,
  configuredPort: number,
): PanelAction[] {
  const serving = isServing(state);
  const port = 'port' in state ? state.port : configuredPort;
  const start: PanelAction = {
    label: '$(play) Start the MCP server',
    description: state.kind === 'elsewhere' ? 'takes it over from the other window' : undefined,
    command: COMMANDS.start,
  };
  const everyday: PanelAction[] = [
    { label: '$(clippy) Copy client configuration…', command: COMMANDS.copyConfig },
    {
      label: '$(question) Doctor',
      description: 'why a game does not connect or a breakpoint does not bind',
      command: COMMANDS.doctor,
    },
    { label: '$(output) Show the log', command: COMMANDS.showLog },
    {
      label: '$(plug) Change port…',
      description: serving ? `now ${port}` : `port ${port}`,
      command: COMMANDS.changePort,
    },
    {
      label: autoStart ? '$(check) Auto-start: on' : '$(circle-large-outline) Auto-start: off',
      description: 'click to toggle',
      command: COMMANDS.toggleAutoStart,
    },
  ];
  const interrupt: PanelAction[] =
    waiting > 0
      ? [
          {
            label: '$(debug-stop) Interrupt the waiting agent',
            description: `${waiting} call${waiting === 1 ? '' : 's'} waiting on the debugger`,
            command: COMMANDS.interrupt,
          },
        ]
      : [];
  if (!serving) return [start, ...everyday, ...interrupt];
  return [
    ...everyday,
    ...interrupt,
    { label: '$(debug-restart) Restart the MCP server', command: COMMANDS.restart },
    { label: '$(debug-stop) Stop the MCP server', command: COMMANDS.stop },
  ];
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
