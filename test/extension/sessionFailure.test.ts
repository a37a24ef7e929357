/**
 * A debug session's failure that no launch/attach response carries (the attach wait running out)
 * is an error notification with its first sentence; "Show Full Text" opens the whole text as a
 * read-only document.
 */
import { resetVscode, vscode } from './vscodeStub';
import * as assert from 'node:assert/strict';
import { notifySessionFailure } from '../../src/extension/debug/debugAdapter';
import type { ReadOnlyDocuments } from '../../src/extension/readOnlyDocs';

describe('extension: session failures', () => {
  beforeEach(() => resetVscode());

  it('shows an error notification, and the whole text when asked', async () => {
    const shown: [string, string][] = [];
    const documents = {
      show: async (name: string, text: string) => {
        shown.push([name, text]);
        return undefined;
      },
    } as unknown as ReadOnlyDocuments;
    vscode.window.showErrorMessage.resolves('Show Full Text');
    notifySessionFailure(documents, 'No game connected.', 'No game connected. Check the port.');
    const [message, action] = vscode.window.showErrorMessage.firstCall.args as [string, string];
    assert.equal(message, 'No game connected.');
    assert.equal(action, 'Show Full Text');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(shown, [
      ['LuaPanda session failure.txt', 'No game connected. Check the port.'],
    ]);
  });

  it('shows nothing more when the notification is dismissed', async () => {
    let opened = false;
    const documents = {
      show: async () => {
        opened = true;
        return undefined;
      },
    } as unknown as ReadOnlyDocuments;
    vscode.window.showErrorMessage.resolves(undefined);
    notifySessionFailure(documents, 'Failed.', 'Failed. Because.');
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(opened, false);
  });
});
