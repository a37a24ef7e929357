/**
 * After the MCP server moved to another port: VS Code's own MCP list follows by itself, but the
 * configurations the user copied into other clients (Claude, Cursor, …) still name the old port.
 * Says so once per move, and offers to copy a configuration again.
 */
import * as vscode from 'vscode';
import { COMMANDS } from './panel';

export const COPY_AGAIN = 'Copy Client Configuration…';

/** Resolves with the user's choice (undefined: dismissed); copies again when asked. */
export async function offerCopyAgain(
  oldPort: number,
  newPort: number,
): Promise<string | undefined> {
  const choice = await vscode.window.showInformationMessage(
    `LuaPanda MCP now serves on port ${newPort}. MCP clients configured before still point at ` +
      `port ${oldPort}: copy their configuration again.`,
    COPY_AGAIN,
  );
  if (choice === COPY_AGAIN) await vscode.commands.executeCommand(COMMANDS.copyConfig);
  return choice;
}

/** The hints shown in this window, in order (what the extension's API lets tests read). */
export class PortHints {
  readonly shown: { readonly from: number; readonly to: number }[] = [];

  offer(from: number, to: number): Promise<string | undefined> {
    this.shown.push({ from, to });
    return offerCopyAgain(from, to);
  }
}
