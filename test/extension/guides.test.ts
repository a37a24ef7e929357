/**
 * "LuaPanda: Open a Guide": each guide the packaged README and the walkthrough name opens from the
 * extension's own folder, by name or picked; an unknown name is said, never silently ignored.
 */
import { Uri, resetVscode, vscode } from './vscodeStub';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as vscodeTypes from 'vscode';
import { GUIDES } from '../../src/extension/guides/guideList';
import { openGuide } from '../../src/extension/guides/openGuide';
import { REPO_ROOT } from '../harness/luaProcess';

const context = {
  asAbsolutePath: (relative: string) => path.join(REPO_ROOT, relative),
} as unknown as vscodeTypes.ExtensionContext;

describe('extension: guides', () => {
  beforeEach(() => resetVscode());

  it('opens each guide by name (any case) as a Markdown preview of the shipped file', async () => {
    for (const guide of GUIDES) {
      vscode.commands.executeCommand.resetHistory();
      const file = await openGuide(context, guide.name.toUpperCase());
      assert.equal(file, path.join(REPO_ROOT, guide.file));
      assert.ok(fs.existsSync(file), `${guide.file} exists`);
      const [command, uri] = vscode.commands.executeCommand.firstCall.args as [string, Uri];
      assert.equal(command, 'markdown.showPreview');
      assert.equal(uri.fsPath, file);
    }
  });

  it('asks which guide without a name, and says so for a name it does not know', async () => {
    vscode.window.showQuickPick.callsFake(async (items: { label: string }[]) =>
      items.find((i) => i.label === 'Hot Reload'),
    );
    assert.equal(
      await openGuide(context),
      path.join(REPO_ROOT, 'Docs', 'Hot_Reload.md'),
      'the picked guide',
    );
    assert.equal(await openGuide(context, 'Engine Guide'), undefined);
    assert.match(
      vscode.window.showErrorMessage.firstCall.args[0] as string,
      /no guide "Engine Guide".*Engines, Hot Reload/,
    );
  });
});
