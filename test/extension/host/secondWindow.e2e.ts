/**
 * A second VS Code window (a second extension host of the same user) on the same MCP port, while
 * the first window serves it: at start-up this window does not start a server and shows which
 * folder serves; started by hand, it takes the port over through the authenticated control route.
 * (The runner then closes this window and checks that the first one takes over again.)
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { extensionApi, fetchHealthJson, waitUntil, workspaceFolder } from './helpers';

const port = Number(process.env.E2E_MCP_PORT);
const firstWorkspace = process.env.E2E_FIRST_WORKSPACE;

describe('a second window on the same port', () => {
  it('does not start a server while the first window serves, and says which folder does', async () => {
    const api = await extensionApi();
    await waitUntil(
      () => api.manager.state.kind !== 'stopped' && api.manager.state.kind !== 'starting',
      20_000,
      'the start-up decision',
    );
    const state = api.manager.state;
    assert.equal(state.kind, 'elsewhere', JSON.stringify(state));
    assert.equal(state.kind === 'elsewhere' && state.workspace, firstWorkspace);
    assert.equal(api.statusBar.server.text, '$(window) LuaPanda MCP: other window');
    assert.match(String(api.statusBar.server.tooltip), new RegExp(`folder ${firstWorkspace}`));
    const health = await fetchHealthJson(port);
    assert.equal(health?.workspace, firstWorkspace);
    assert.ok(
      api.panelActions().some((a) => a.command === 'luapanda.mcp.start'),
      'the panel offers to take over',
    );
  });

  it('refuses a handover request without the control token', async () => {
    const response = await fetch(`http://127.0.0.1:${port}/luapanda/control/handover`, {
      method: 'POST',
      headers: { 'x-luapanda-control-token': 'guess' },
      body: '{}',
    });
    assert.equal(response.status, 401);
    assert.equal((await fetchHealthJson(port))?.workspace, firstWorkspace);
  });

  it('takes the port over when the user starts the server here', async () => {
    const api = await extensionApi();
    const state = (await vscode.commands.executeCommand('luapanda.mcp.start')) as { kind: string };
    assert.equal(state.kind, 'running', JSON.stringify(state));
    const health = await fetchHealthJson(port);
    assert.equal(health?.workspace, workspaceFolder().uri.fsPath);
    assert.equal(api.statusBar.server.text, `$(debug-alt) LuaPanda MCP :${port}`);
  });
});
