/**
 * The commands about debugging Lua itself rather than the MCP server: copy the runtime into the
 * game, the Doctor's report (why a game does not connect or a breakpoint does not bind), and hot
 * reload of a Lua file, by command and on save.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { copyRuntime } from './copyRuntime';
import { gatherFacts, renderReport } from '../doctor/doctor';
import { HotReloadOptions, hotReloadCommand, reloadOnSave } from './hotReload';
import { COMMANDS, describeState } from '../mcpServer/panel';
import { ReadOnlyDocuments } from '../readOnlyDocs';
import { McpServerManager } from '../mcpServer/serverManager';
import { readSettings } from '../settings';
import { VscodeDebugChannel } from '../agentTools/vscodeChannel';

export interface DebugCommandParts {
  readonly context: vscode.ExtensionContext;
  readonly channel: VscodeDebugChannel;
  readonly manager: McpServerManager;
  readonly documents: ReadOnlyDocuments;
  readonly log: vscode.LogOutputChannel;
}

export function registerDebugCommands(parts: DebugCommandParts): vscode.Disposable[] {
  const { context, channel, log } = parts;
  const runtimeDir = context.asAbsolutePath(path.join('dist', 'lua'));
  const hotReload: HotReloadOptions = {
    channel,
    onSave: () => readSettings().hotReloadOnSave,
    log: (line) => log.info(line),
  };
  return [
    vscode.commands.registerCommand(COMMANDS.copyRuntime, (target?: string) =>
      copyRuntime(runtimeDir, target, log),
    ),
    vscode.commands.registerCommand(COMMANDS.doctor, () => showDoctor(parts, runtimeDir)),
    vscode.commands.registerCommand(COMMANDS.hotReloadFile, (resource?: unknown) =>
      hotReloadCommand(hotReload, resource),
    ),
    vscode.workspace.onDidSaveTextDocument((document) => void reloadOnSave(hotReload, document)),
  ];
}

/** Gathers the Doctor's facts, shows its report in a read-only document and returns it. */
async function showDoctor(
  { channel, manager, documents }: DebugCommandParts,
  runtimeDir: string,
): Promise<string> {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const breakpoints = channel.breakpoints
    .list()
    .filter((b) => /\.(lua|txt|bytes)$/i.test(b.filePath))
    .map((b) => ({
      file: folder ? path.relative(folder, b.filePath) : b.filePath,
      line: b.line,
      verified: b.verified,
      message: b.message,
      inWorkspace: folder ? !path.relative(folder, b.filePath).startsWith('..') : false,
    }));
  const facts = await gatherFacts({
    workspace: folder,
    runtimeDir,
    editorFile: activeFile(),
    breakpoints,
    liveLuaSessions: channel.sessions().filter((s) => s.type === 'luapanda').length,
    mcp: describeState(manager.state),
  });
  const report = renderReport(facts);
  await documents.show('LuaPanda Doctor.md', report, 'markdown');
  return report;
}

/** The file `${file}` would name if the user pressed F5 now (the Doctor's own report excluded). */
function activeFile(): string | undefined {
  const uri = vscode.window.activeTextEditor?.document.uri;
  return uri?.scheme === 'file' ? uri.fsPath : undefined;
}
