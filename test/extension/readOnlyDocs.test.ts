/**
 * The Doctor's report and the client snippets open as read-only virtual documents of our scheme,
 * never as Untitled buffers (which are unsaved, so that F5 with `debug.saveBeforeStart` would ask
 * where to save them). The extension-host suite checks the same in real VS Code.
 */
import { FakeTextDocument, contentProviders, resetVscode, vscode } from './vscodeStub';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { DOC_SCHEME, ReadOnlyDocuments } from '../../src/extension/readOnlyDocs';

describe('extension: read-only documents', () => {
  let documents: ReadOnlyDocuments;
  beforeEach(() => {
    resetVscode();
    documents = new ReadOnlyDocuments();
  });
  afterEach(() => documents.dispose());

  it('shows text as a document of its own scheme, neither untitled nor dirty', async () => {
    const editor = (await documents.show('LuaPanda Doctor.md', '# LuaPanda Doctor\n', 'markdown'))
      .document as unknown as FakeTextDocument;
    assert.equal(editor.uri.scheme, DOC_SCHEME);
    assert.equal(editor.isUntitled, false);
    assert.equal(editor.isDirty, false);
    assert.equal(editor.languageId, 'markdown');
    assert.equal(editor.getText(), '# LuaPanda Doctor\n');
    const opened = vscode.workspace.openTextDocument.getCalls().map((c) => c.args[0]);
    assert.ok(
      opened.every((target) => target instanceof vscode.Uri),
      'never openTextDocument({ content }), which makes an Untitled buffer',
    );
  });

  it('showing the same name again replaces the text and tells open editors', async () => {
    const changed: string[] = [];
    documents.onDidChange((uri) => changed.push(uri.toString()));
    await documents.show('LuaPanda Doctor.md', 'first');
    assert.deepEqual(changed, []);
    const again = (await documents.show('LuaPanda Doctor.md', 'second'))
      .document as unknown as FakeTextDocument;
    assert.equal(again.getText(), 'second');
    assert.deepEqual(changed, [documents.uriOf('LuaPanda Doctor.md').toString()]);
  });

  it('sets the language a snippet asks for, and keeps a document VS Code cannot type', async () => {
    const shell = (
      await documents.show('Claude Code configuration.sh', 'claude mcp add', 'shellscript')
    ).document as unknown as FakeTextDocument;
    assert.equal(shell.languageId, 'shellscript');
    vscode.languages.setTextDocumentLanguage.rejects(new Error('Unknown language id: toml'));
    try {
      const toml = (await documents.show('Codex configuration.toml', '[mcp_servers]', 'toml'))
        .document as unknown as FakeTextDocument;
      assert.equal(toml.getText(), '[mcp_servers]');
    } finally {
      vscode.languages.setTextDocumentLanguage.resetBehavior();
      vscode.languages.setTextDocumentLanguage.callsFake(
        async (document: FakeTextDocument, language: string) => {
          document.languageId = language;
          return document;
        },
      );
    }
  });

  it('dispose() unregisters the scheme', () => {
    assert.ok(contentProviders.has(DOC_SCHEME));
    documents.dispose();
    assert.ok(!contentProviders.has(DOC_SCHEME));
    documents = new ReadOnlyDocuments();
  });

  it('the extension opens no document from text (no Untitled buffers anywhere)', () => {
    const folder = path.join(__dirname, '..', '..', '..', 'src', 'extension');
    for (const file of fs.readdirSync(folder).filter((f) => f.endsWith('.ts'))) {
      const text = fs.readFileSync(path.join(folder, file), 'utf8');
      assert.doesNotMatch(text, /openTextDocument\(\s*\{/, `${file} opens an Untitled buffer`);
    }
  });
});
