/** The extension's settings (`luapanda.*`), read in one place. */
import * as vscode from 'vscode';
import { DEFAULT_MCP_PORT } from '../mcp/transport/http';

export type CodeExecutionPolicy = 'allow' | 'ask' | 'deny';

export interface ExtensionSettings {
  readonly port: number;
  readonly autoStart: boolean;
  readonly token?: string;
  readonly codeExecution: CodeExecutionPolicy;
  readonly defaultTimeoutSeconds: number;
  readonly allowOutsideWorkspace: boolean;
  /** Offer the debugger tools to Copilot as VS Code language-model tools. */
  readonly languageModelTools: boolean;
  /** Ask before a language-model tool call that changes the debug session. */
  readonly confirmLanguageModelToolChanges: boolean;
  /** Reload a saved Lua file into the running LuaPanda session. */
  readonly hotReloadOnSave: boolean;
}

export const SECTION = 'luapanda';

export function readSettings(): ExtensionSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  const port = config.get<number>('mcp.port', DEFAULT_MCP_PORT);
  const policy = config.get<string>('mcp.codeExecution', 'allow');
  const token = config.get<string>('mcp.token', '').trim();
  return {
    port: Number.isInteger(port) && port > 0 && port < 65536 ? port : DEFAULT_MCP_PORT,
    autoStart: config.get<boolean>('mcp.autoStart', true),
    token: token === '' ? undefined : token,
    codeExecution: policy === 'ask' || policy === 'deny' ? policy : 'allow',
    defaultTimeoutSeconds: config.get<number>('mcp.defaultTimeoutSeconds', 30),
    allowOutsideWorkspace: config.get<boolean>('mcp.allowOutsideWorkspace', false),
    languageModelTools: config.get<boolean>('languageModelTools.enabled', true),
    confirmLanguageModelToolChanges: config.get<boolean>('languageModelTools.confirmChanges', true),
    hotReloadOnSave: config.get<boolean>('hotReloadOnSave', false),
  };
}

export async function updateSetting(key: string, value: unknown): Promise<void> {
  await vscode.workspace
    .getConfiguration(SECTION)
    .update(key, value, vscode.ConfigurationTarget.Global);
}
