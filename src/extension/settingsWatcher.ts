/**
 * Applies setting changes that need more than reading the setting the next time: the
 * language-model tools appear or go, and the MCP server moves to a new port or token or follows
 * the auto-start switch.
 */
import * as vscode from 'vscode';
import { LanguageModelTools } from './agentTools/languageModelTools';
import { McpServerManager } from './mcpServer/serverManager';

export function watchSettings(
  manager: McpServerManager,
  languageModelTools: LanguageModelTools,
): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((event) => {
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
  });
}
