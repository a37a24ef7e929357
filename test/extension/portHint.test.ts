/**
 * Moving the MCP server to another port says that client configurations copied before still name
 * the old port, and copies one again when asked.
 */
import { resetVscode, vscode } from './vscodeStub';
import * as assert from 'node:assert/strict';
import { COPY_AGAIN, offerCopyAgain } from '../../src/extension/mcpServer/portHint';

describe('extension: the hint after a port change', () => {
  beforeEach(() => resetVscode());

  it('names both ports and copies a configuration again when asked', async () => {
    vscode.window.showInformationMessage.resolves(COPY_AGAIN);
    assert.equal(await offerCopyAgain(6009, 6110), COPY_AGAIN);
    const [text, action] = vscode.window.showInformationMessage.firstCall.args as string[];
    assert.match(text, /now serves on port 6110\. .*still point at port 6009/);
    assert.equal(action, COPY_AGAIN);
    assert.ok(vscode.commands.executeCommand.calledWith('luapanda.mcp.copyClientConfig'));
  });

  it('copies nothing when dismissed', async () => {
    vscode.window.showInformationMessage.resolves(undefined);
    await offerCopyAgain(6009, 6110);
    assert.ok(!vscode.commands.executeCommand.calledWith('luapanda.mcp.copyClientConfig'));
  });
});
