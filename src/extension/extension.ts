/**
 * The VS Code extension's entry point. Activation is cheap: it only creates the log channel here;
 * the debugger type, the MCP server manager and the commands register as their parts arrive.
 */
import * as vscode from 'vscode';

let log: vscode.LogOutputChannel | undefined;

export function activate(context: vscode.ExtensionContext): void {
  log = vscode.window.createOutputChannel('LuaPanda MCP', { log: true });
  context.subscriptions.push(log);
  log.info(`LuaPanda MCP Debugger ${context.extension.packageJSON.version} activated`);
}

export function deactivate(): void {
  log = undefined;
}
