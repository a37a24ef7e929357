/**
 * "LuaPanda: Copy LuaPanda.lua into the Workspace": puts the drop-in runtime and its LuaLS type
 * definitions (LuaPanda.meta.lua, so the editor completes and checks `LuaPanda.*` calls) into the
 * folder of the game's Lua scripts.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

/** The files copied, in order; the first is the runtime the game requires. */
export const RUNTIME_FILES = ['LuaPanda.lua', 'LuaPanda.meta.lua'] as const;

/**
 * Copies the runtime from `runtimeDir` (the extension's dist/lua) into `target`, or into a folder
 * the user picks when `target` is undefined (then an existing LuaPanda.lua is replaced only after
 * asking). Returns the path of the copied LuaPanda.lua, or undefined when nothing was copied.
 */
export async function copyRuntime(
  runtimeDir: string,
  target: string | undefined,
  log: { info(message: string): void },
): Promise<string | undefined> {
  let folder = target;
  if (folder === undefined) {
    const folders = vscode.workspace.workspaceFolders ?? [];
    if (folders.length === 0) {
      void vscode.window.showErrorMessage('Open the game project folder first.');
      return undefined;
    }
    const picked = await vscode.window.showOpenDialog({
      canSelectFiles: false,
      canSelectFolders: true,
      defaultUri: folders[0].uri,
      openLabel: 'Copy LuaPanda.lua here',
      title: "Folder of the game's Lua scripts (where require can find LuaPanda)",
    });
    folder = picked?.[0]?.fsPath;
  }
  if (folder === undefined) return undefined;
  const destination = path.join(folder, RUNTIME_FILES[0]);
  const exists = await fs.stat(destination).then(
    () => true,
    () => false,
  );
  if (exists && target === undefined) {
    const answer = await vscode.window.showWarningMessage(
      `${destination} exists. Replace it with the bundled runtime?`,
      { modal: true },
      'Replace',
    );
    if (answer !== 'Replace') return undefined;
  }
  // The definitions describe this runtime's API, so they are replaced together with it.
  for (const file of RUNTIME_FILES) {
    await fs.copyFile(path.join(runtimeDir, file), path.join(folder, file));
  }
  log.info(`copied the runtime and its LuaLS definitions to ${folder}`);
  void vscode.window.showInformationMessage(
    `Copied LuaPanda.lua (and LuaPanda.meta.lua, its type definitions for the Lua language server) to ${folder}. In the game: require("LuaPanda").start("127.0.0.1", 8818)`,
  );
  return destination;
}
