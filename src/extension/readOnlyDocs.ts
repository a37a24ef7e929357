/**
 * Read-only text the extension shows — the Doctor's report, a client configuration snippet — as
 * virtual documents of our own URI scheme (`luapanda-doc:`), served by a
 * `TextDocumentContentProvider`. VS Code opens such documents read-only and never counts them as
 * unsaved: an Untitled buffer (a document opened from a content string) would be dirty, and with
 * `debug.saveBeforeStart` the next F5 would stop on a "Save As" dialog for it.
 */
import * as vscode from 'vscode';

export const DOC_SCHEME = 'luapanda-doc';
/** How long `show` waits for VS Code to read new text into an already known document. */
const REFRESH_WAIT_MS = 2000;

export class ReadOnlyDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly texts = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(DOC_SCHEME, this);
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.texts.get(uri.toString()) ?? '';
  }

  /** The URI of a document named `name` (its extension picks the editor's language). */
  uriOf(name: string): vscode.Uri {
    return vscode.Uri.from({ scheme: DOC_SCHEME, path: `/${name}` });
  }

  /**
   * Shows `text` as the read-only document `name` (e.g. `LuaPanda Doctor.md`). Showing the same
   * name again replaces the text, also in an editor that shows it already.
   */
  async show(name: string, text: string, language?: string): Promise<vscode.TextEditor> {
    const uri = this.uriOf(name);
    const key = uri.toString();
    const known = this.texts.has(key);
    this.texts.set(key, text);
    if (known) this.changed.fire(uri);
    let document = await vscode.workspace.openTextDocument(uri);
    if (document.getText() !== text) await this.refreshed(document, text);
    if (language !== undefined && document.languageId !== language) {
      // A language VS Code does not know (toml without an extension for it) stays plain text.
      document = await vscode.languages
        .setTextDocumentLanguage(document, language)
        .then(undefined, () => document);
    }
    return vscode.window.showTextDocument(document, { preview: true });
  }

  /**
   * VS Code keeps a closed document's text for a while, and reads the provider again only after
   * the change event, asynchronously: opening it at once would show the previous text (the last
   * report, after its tab was closed). Waits (up to 2 s) until the document has the new text.
   */
  private refreshed(document: vscode.TextDocument, text: string): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        subscription.dispose();
        resolve();
      };
      const timer = setTimeout(done, REFRESH_WAIT_MS);
      const subscription = vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document === document && document.getText() === text) done();
      });
      if (document.getText() === text) done();
    });
  }

  dispose(): void {
    this.registration.dispose();
    this.changed.dispose();
    this.texts.clear();
  }
}
