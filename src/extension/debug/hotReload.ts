/**
 * Hot reload from the editor: the command "LuaPanda: Hot Reload This File" (editor title and
 * context menus while a LuaPanda session runs) and reload on save (`luapanda.hotReloadOnSave`).
 * Both send the editor's text of the file to the LuaPanda session through the adapter's
 * `luapanda/hotReload` request and say the outcome in a few words; the Debug Console gets the
 * adapter's full summary.
 */
import * as vscode from 'vscode';
import { HOT_RELOAD_REQUEST } from '../../adapter/hotReloadRequest';
import type { DebugChannel, DebugSessionPort } from '../../mcp/channel';
import { HotReloadReport, reportHeadline } from '../../session/hotReload';
import { DEBUG_TYPE } from './contribution';

/** How long a reload on save shows its success in the status bar. */
const STATUS_MS = 5_000;

export interface HotReloadOptions {
  readonly channel: DebugChannel;
  /** Whether a saved Lua file is reloaded (read at each save). */
  readonly onSave: () => boolean;
  readonly log: (line: string) => void;
}

/** The outcome as the editor shows it. */
export interface ReloadOutcome {
  readonly ok: boolean;
  readonly text: string;
  /** The report, when the runtime answered. */
  readonly report?: HotReloadReport;
}

/** What a reload needs of a debug session. */
export type ReloadSession = Pick<DebugSessionPort, 'customRequest'>;

/**
 * The LuaPanda session a reload goes to: the focused one — with several games on one port, the
 * game the user looks at (a child session of the attach session) — else the channel's active
 * one, else its newest LuaPanda session. An attach session, which runs no program itself, stands
 * for its games: the file is reloaded into every one.
 */
export function reloadTarget(channel: DebugChannel): ReloadSession | undefined {
  const focused = vscode.debug.activeDebugSession;
  if (focused?.type === DEBUG_TYPE) {
    return (
      everyGame(channel, focused.id) ?? {
        customRequest: async (command, args) => focused.customRequest(command, args),
      }
    );
  }
  const active = channel.activeSession();
  const target =
    active?.type === DEBUG_TYPE
      ? active
      : channel
          .sessions()
          .filter((s) => s.type === DEBUG_TYPE)
          .at(-1);
  return target && (everyGame(channel, target.id) ?? target);
}

/** The games of the attach session `id` as one reload target (the first failure, or a report). */
function everyGame(channel: DebugChannel, id: string): ReloadSession | undefined {
  const games = channel.sessions().filter((s) => s.parentId === id);
  if (games.length === 0) return undefined;
  return {
    customRequest: async (command, args) => {
      const reports = (await Promise.all(
        games.map((game) => game.customRequest(command, args)),
      )) as HotReloadReport[];
      return reports.find((r) => r.status !== 'success') ?? reports[0];
    },
  };
}

/** Sends one reload; never rejects. */
export async function reloadFile(
  session: ReloadSession,
  file: string,
  source: string | undefined,
): Promise<ReloadOutcome> {
  try {
    const report = (await session.customRequest(HOT_RELOAD_REQUEST, {
      path: file,
      ...(source !== undefined ? { source } : {}),
    })) as HotReloadReport;
    const caveats =
      report.notFound.length + report.notReplaced.length + report.active.length > 0 ||
      report.incomplete !== undefined;
    const more = report.status === 'success' && caveats ? ' (details in the Debug Console)' : '';
    return { ok: report.status === 'success', text: `${reportHeadline(report)}${more}`, report };
  } catch (e) {
    return { ok: false, text: `Hot reload failed: ${(e as Error).message}` };
  }
}

export function isLuaDocument(document: vscode.TextDocument): boolean {
  return document.uri.scheme === 'file' && /\.lua$/i.test(document.uri.fsPath);
}

/** The command's file: the resource a menu passes, else the active editor's. */
async function documentFor(resource: unknown): Promise<vscode.TextDocument | undefined> {
  if (resource instanceof vscode.Uri) {
    const open = vscode.workspace.textDocuments.find(
      (d) => d.uri.toString() === resource.toString(),
    );
    return open ?? (await vscode.workspace.openTextDocument(resource));
  }
  return vscode.window.activeTextEditor?.document;
}

/** The command handler: reloads the file, shows the outcome, and returns it (for tests). */
export async function hotReloadCommand(
  options: HotReloadOptions,
  resource?: unknown,
): Promise<ReloadOutcome> {
  const document = await documentFor(resource);
  const fail = (text: string): ReloadOutcome => {
    void vscode.window.showErrorMessage(text);
    return { ok: false, text };
  };
  if (!document || !isLuaDocument(document)) {
    return fail('LuaPanda: open a Lua file to hot reload it.');
  }
  const session = reloadTarget(options.channel);
  if (!session) {
    return fail('LuaPanda: no LuaPanda debug session is running; start one (F5), then reload.');
  }
  const outcome = await reloadFile(session, document.uri.fsPath, document.getText());
  options.log(outcome.text);
  if (outcome.ok) void vscode.window.showInformationMessage(outcome.text);
  else void vscode.window.showErrorMessage(outcome.text);
  return outcome;
}

/**
 * Reload on save. A file the program never loaded is not news (phase `find`): it goes to the
 * status bar like a success, so that saving other Lua files raises no error.
 */
export async function reloadOnSave(
  options: HotReloadOptions,
  document: vscode.TextDocument,
): Promise<ReloadOutcome | undefined> {
  if (!options.onSave() || !isLuaDocument(document)) return undefined;
  const session = reloadTarget(options.channel);
  if (!session) return undefined;
  const outcome = await reloadFile(session, document.uri.fsPath, document.getText());
  options.log(outcome.text);
  const quiet = outcome.ok || outcome.report?.phase === 'find';
  if (quiet) vscode.window.setStatusBarMessage(outcome.text, STATUS_MS);
  else void vscode.window.showErrorMessage(outcome.text);
  return outcome;
}
