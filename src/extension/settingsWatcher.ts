/**
 * Applies setting changes that need more than reading the setting the next time: the
 * language-model tools appear or go, and the MCP server moves to a new port or token or follows
 * the auto-start switch. A move to another port says that copied client configurations still
 * name the old one (portHint.ts).
 */
import * as vscode from 'vscode';
import { LanguageModelTools } from './agentTools/languageModelTools';
import type { PortHints } from './mcpServer/portHint';
import { McpServerManager } from './mcpServer/serverManager';
import { readSettings } from './settings';

export function watchSettings(
  manager: McpServerManager,
  languageModelTools: LanguageModelTools,
  portHints: PortHints,
): vscode.Disposable {
  let port = readSettings().port;
  return vscode.workspace.onDidChangeConfiguration((event) => {
    if (event.affectsConfiguration('luapanda.languageModelTools.enabled')) {
      languageModelTools.refresh();
    }
    if (
      event.affectsConfiguration('luapanda.mcp.port') ||
      event.affectsConfiguration('luapanda.mcp.token') ||
      event.affectsConfiguration('luapanda.mcp.autoStart')
    ) {
      const before = port;
      port = readSettings().port;
      void manager.settingsChanged().then((state) => {
        if (port !== before && state.kind === 'running' && state.port === port) {
          void portHints.offer(before, port);
        }
      });
    }
  });
}
