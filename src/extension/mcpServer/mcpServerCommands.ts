/**
 * The commands that drive this window's MCP server and the agent it serves: start, stop,
 * restart, status, the quick-pick control panel, change port, auto-start, show the log, and
 * interrupt a waiting agent.
 */
import * as vscode from 'vscode';
import { SessionMonitor } from '../../mcp/sessionMonitor';
import { changePort } from './changePort';
import { COMMANDS, describeState, panelActions } from './panel';
import { McpServerManager } from './serverManager';
import { readSettings, updateSetting } from '../settings';

export interface McpServerCommandParts {
  readonly manager: McpServerManager;
  readonly monitor: SessionMonitor;
  readonly log: vscode.LogOutputChannel;
}

export function registerMcpServerCommands({
  manager,
  monitor,
  log,
}: McpServerCommandParts): vscode.Disposable[] {
  const { registerCommand } = vscode.commands;
  return [
    registerCommand(COMMANDS.start, () => manager.start()),
    registerCommand(COMMANDS.stop, () => manager.stop()),
    registerCommand(COMMANDS.restart, () => manager.restart()),
    registerCommand(COMMANDS.status, () => {
      const text = describeState(manager.state);
      void vscode.window.showInformationMessage(`LuaPanda MCP server: ${text}`);
      return manager.state;
    }),
    registerCommand(COMMANDS.panel, async () => {
      const picked = await vscode.window.showQuickPick(
        panelActions(manager.state, readSettings().autoStart, monitor.waiting, readSettings().port),
        {
          title: `LuaPanda MCP — ${describeState(manager.state)}`,
          placeHolder: 'Choose an action',
        },
      );
      if (picked) await vscode.commands.executeCommand(picked.command);
    }),
    registerCommand(COMMANDS.changePort, (port?: number) => changePort(manager, port)),
    registerCommand(COMMANDS.toggleAutoStart, async () => {
      const next = !readSettings().autoStart;
      await updateSetting('mcp.autoStart', next);
      void vscode.window.showInformationMessage(
        `LuaPanda MCP: auto-start is ${next ? 'on' : 'off'}.`,
      );
      return next;
    }),
    registerCommand(COMMANDS.showLog, () => log.show()),
    // The waiting item follows the monitor's event (agentWaiting.ts): nothing to redraw here.
    registerCommand(COMMANDS.interrupt, () => {
      const count = monitor.interrupt('The user interrupted the wait in VS Code.');
      log.info(`interrupted ${count} waiting agent call(s)`);
      return count;
    }),
  ];
}
