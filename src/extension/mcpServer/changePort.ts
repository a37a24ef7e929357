/**
 * Changing the MCP server's port: asks for it (unless given), checks it, warns when another
 * program holds it, and saves it in the settings, which restarts the server there.
 */
import * as vscode from 'vscode';
import { fetchHealth } from '../../mcp/transport/http';
import { probeLocalPort } from '../doctor/doctor';
import { McpServerManager, ServerState, validatePort } from './serverManager';
import { readSettings, updateSetting } from '../settings';

/** Resolves with the server's state after the change, or undefined when nothing changed. */
export async function changePort(
  manager: McpServerManager,
  given?: number,
): Promise<ServerState | undefined> {
  const current = readSettings().port;
  let text: string | undefined = given === undefined ? undefined : String(given);
  if (text === undefined) {
    text = await vscode.window.showInputBox({
      title: 'LuaPanda MCP: port of the MCP server',
      value: String(current),
      prompt: 'The MCP server listens on http://127.0.0.1:<port>/mcp',
      validateInput: (value) => validatePort(value),
    });
  }
  if (text === undefined) return undefined;
  const problem = validatePort(text);
  if (problem) {
    void vscode.window.showErrorMessage(`LuaPanda MCP: ${problem}`);
    return undefined;
  }
  const port = Number(text);
  // Our own server elsewhere answers /health: only a foreign program holding the port is a problem.
  if (
    port !== current &&
    !(await fetchHealth(port)) &&
    (await probeLocalPort(port)) === 'listening'
  ) {
    const choice = await vscode.window.showWarningMessage(
      `Port ${port} is in use by another program. Choose another port?`,
      'Choose Another Port',
      'Keep ' + String(current),
    );
    if (choice === 'Choose Another Port' && given === undefined) return changePort(manager);
    return undefined;
  }
  if (port !== current) await updateSetting('mcp.port', port);
  return manager.state;
}
