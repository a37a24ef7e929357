/**
 * "LuaPanda: Open a Guide": opens one of the guides shipped in the extension as a Markdown
 * preview. The extension page cannot open a file of the extension (its links open only web
 * addresses), so the packaged README and the walkthrough name this command instead.
 */
import * as vscode from 'vscode';
import { COMMANDS } from '../mcpServer/panel';
import { GUIDES, Guide } from './guideList';

export function registerOpenGuide(context: vscode.ExtensionContext): vscode.Disposable {
  return vscode.commands.registerCommand(COMMANDS.openGuide, (name?: unknown) =>
    openGuide(context, name),
  );
}

/** Opens the guide named `name` (any case), or asks which when none is given; returns its file. */
export async function openGuide(
  context: vscode.ExtensionContext,
  name?: unknown,
): Promise<string | undefined> {
  let guide: Guide | undefined;
  if (typeof name === 'string' && name !== '') {
    guide = GUIDES.find((g) => g.name.toLowerCase() === name.toLowerCase());
    if (!guide) {
      void vscode.window.showErrorMessage(
        `There is no guide "${name}". The guides: ${GUIDES.map((g) => g.name).join(', ')}.`,
      );
      return undefined;
    }
  } else {
    const picked = await vscode.window.showQuickPick(
      GUIDES.map((g) => ({ label: g.name, description: g.description, guide: g })),
      { placeHolder: 'Open a LuaPanda guide' },
    );
    guide = picked?.guide;
  }
  if (!guide) return undefined;
  const file = context.asAbsolutePath(guide.file);
  try {
    await vscode.commands.executeCommand('markdown.showPreview', vscode.Uri.file(file));
  } catch {
    // The built-in Markdown extension is disabled: the source reads well enough.
    await vscode.window.showTextDocument(vscode.Uri.file(file));
  }
  return file;
}
