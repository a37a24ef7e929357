/**
 * Copying an MCP client's configuration: the stdio bridge copied to a stable place in the
 * extension's storage (so configurations survive extension updates), the templates for the
 * server's URL and token, and the command that puts the chosen one on the clipboard.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { clientTemplate, clientTemplates, TemplateInput } from './clientConfigs';
import { COMMANDS } from '../mcpServer/panel';
import { ReadOnlyDocuments } from '../readOnlyDocs';
import { McpServerManager } from '../mcpServer/serverManager';
import { readSettings } from '../settings';

/** File extensions of the client snippets' languages, for their read-only documents' names. */
const EXTENSIONS: Record<'json' | 'toml' | 'shellscript', string> = {
  json: 'json',
  toml: 'toml',
  shellscript: 'sh',
};

export interface ClientConfigParts {
  readonly context: vscode.ExtensionContext;
  readonly manager: McpServerManager;
  readonly documents: ReadOnlyDocuments;
  readonly log: vscode.LogOutputChannel;
}

/** What the templates are made from now: the server's URL and token, and the bridge's place. */
export async function bridgeInput({
  context,
  manager,
  log,
}: ClientConfigParts): Promise<TemplateInput> {
  const source = context.asAbsolutePath(path.join('dist', 'cli', 'luapanda-mcp.js'));
  const target = path.join(context.globalStorageUri.fsPath, 'bin', 'luapanda-mcp.js');
  try {
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.copyFile(source, target);
  } catch (e) {
    log.warn(`could not copy the stdio bridge to ${target}: ${(e as Error).message}`);
  }
  // Inside VS Code the Node binary is Electron's: it runs the bridge only as plain Node.
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
}

export function registerClientConfigCommands(parts: ClientConfigParts): vscode.Disposable[] {
  return [
    vscode.commands.registerCommand(COMMANDS.copyConfig, async (clientId?: string) => {
      const input = await bridgeInput(parts);
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
          await parts.documents.show(
            `${template.label} configuration.${EXTENSIONS[template.language]}`,
            template.text,
            template.language,
          );
        });
      return template.text;
    }),
  ];
}
