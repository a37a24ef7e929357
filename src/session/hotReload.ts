/**
 * A hot reload's report as the session hands it on: the runtime's reply (feature `hotReload`)
 * with the file it was asked for and its entries tidied (the lists arrive as arrays, `[]` when
 * empty, and the counts as numbers: the reply's schema checks that), and
 * the few lines that say what happened, for the Debug Console, a notification or a log. Nothing
 * here knows DAP, MCP or VS Code.
 */
import type { HotReloadReply } from '../protocol';
import { baseName } from './paths';

/** A function the report names: `Player:update`, `local helper`, … */
export interface ReloadEntry {
  readonly name: string;
  /** The line it is defined at, when the runtime said (0 and absent: no line). */
  readonly line?: number;
  /** Why it was not found, or not replaced. */
  readonly reason?: string;
  /**
   * Replaced functions: whether the new version's text differs from the one the program ran
   * (false: the same code, re-bound); absent when the session did not know the text before.
   */
  readonly changed?: boolean;
}

/** Where a failed reload stopped: finding the file's code, compiling, running it, applying it. */
export type ReloadPhase = 'find' | 'compile' | 'run' | 'apply';

export interface HotReloadReport {
  readonly status: 'success' | 'error';
  /** The file reloaded, as the caller named it. */
  readonly path: string;
  /** Why it failed (status `error`); nothing changed then. */
  readonly error?: string;
  readonly phase?: ReloadPhase;
  /** The chunk name the file was loaded as (`@game/player.lua`). */
  readonly chunk?: string;
  /** Its `package.loaded` key, when it was required. */
  readonly module?: string;
  readonly replaced: readonly ReloadEntry[];
  readonly added: readonly ReloadEntry[];
  readonly notFound: readonly ReloadEntry[];
  readonly notReplaced: readonly ReloadEntry[];
  /** Old versions running now: they finish in the old code. */
  readonly active: readonly ReloadEntry[];
  /** References to old functions rewritten. */
  readonly references: number;
  /** Objects the bounded search visited. */
  readonly searched: number;
  /** Set when the search hit its bound: references beyond it still hold the old code. */
  readonly incomplete?: string;
  readonly timeMs: number;
}

/** The runtime's reply as a report: entries without the runtime's "no line" (0) or empty reason. */
export function normalizeReport(path: string, reply: HotReloadReply): HotReloadReport {
  const list = (entries: HotReloadReply['replaced']): ReloadEntry[] =>
    entries.map((e) => ({
      name: e.name,
      ...(e.line > 0 ? { line: e.line } : {}),
      ...(e.reason !== undefined && e.reason !== '' ? { reason: e.reason } : {}),
    }));
  const failed = reply.status === 'error';
  return {
    status: reply.status,
    path,
    ...(failed ? { error: reply.error || 'the runtime gave no reason' } : {}),
    ...(failed && reply.phase ? { phase: reply.phase } : {}),
    ...(reply.chunk ? { chunk: reply.chunk } : {}),
    ...(reply.module ? { module: reply.module } : {}),
    replaced: list(reply.replaced),
    added: list(reply.added),
    notFound: list(reply.notFound),
    notReplaced: list(reply.notReplaced),
    active: list(reply.active),
    references: reply.references,
    searched: reply.searched,
    ...(reply.incomplete ? { incomplete: reply.incomplete } : {}),
    timeMs: reply.timeMs,
  };
}

/** Entries named on one line before the rest is counted. */
const NAMES_SHOWN = 8;

function names(entries: readonly ReloadEntry[], withReasons: boolean): string {
  const shown = entries.slice(0, NAMES_SHOWN).map((e) => {
    const at = e.line !== undefined ? ` (line ${e.line})` : '';
    return withReasons && e.reason ? `${e.name}${at}: ${e.reason}` : e.name;
  });
  const rest = entries.length - shown.length;
  // Reasons may hold commas: entries with reasons are set apart by semicolons.
  const text = shown.join(withReasons ? '; ' : ', ');
  return rest > 0 ? `${text} and ${rest} more` : text;
}

function formatMs(ms: number): string {
  return ms >= 10 ? `${Math.round(ms)} ms` : `${Number(ms.toFixed(1))} ms`;
}

/**
 * One line for a notification: `Hot reload player.lua: changed Player:update; added Player:jump;
 * re-bound unchanged Player.new, Player:draw; 2.1 ms` (`replaced …` for functions whose earlier
 * text the session did not know), or `Hot reload player.lua failed (compile): player.lua:3: '=' expected
 * near 'x' — nothing changed`.
 */
export function reportHeadline(report: HotReloadReport): string {
  const file = baseName(report.path);
  if (report.status === 'error') {
    const phase = report.phase ? ` (${report.phase})` : '';
    return `Hot reload ${file} failed${phase}: ${report.error ?? 'no reason given'} — nothing changed`;
  }
  const parts: string[] = [];
  const changed = report.replaced.filter((e) => e.changed === true);
  const unknown = report.replaced.filter((e) => e.changed === undefined);
  const same = report.replaced.filter((e) => e.changed === false);
  if (changed.length > 0) parts.push(`changed ${names(changed, false)}`);
  if (unknown.length > 0) parts.push(`replaced ${names(unknown, false)}`);
  if (report.added.length > 0) parts.push(`added ${names(report.added, false)}`);
  if (parts.length === 0) parts.push('no function changed');
  if (same.length > 0) parts.push(`re-bound unchanged ${names(same, false)}`);
  parts.push(formatMs(report.timeMs));
  return `Hot reload ${file}: ${parts.join('; ')}`;
}

/**
 * The headline, then one line per kind of caveat, with reasons: functions not found or not
 * replaced, old versions still running, a search that stopped early. For the Debug Console.
 */
export function reportSummary(report: HotReloadReport): string[] {
  const lines = [reportHeadline(report)];
  if (report.status === 'error') return lines;
  if (report.notReplaced.length > 0) {
    lines.push(`  not replaced: ${names(report.notReplaced, true)}`);
  }
  if (report.notFound.length > 0) {
    lines.push(`  not found in the program: ${names(report.notFound, true)}`);
  }
  if (report.active.length > 0) {
    lines.push(
      `  running now, finishing in the old code: ${names(report.active, false)}` +
        ' (the next call runs the new code)',
    );
  }
  if (report.incomplete) lines.push(`  search incomplete: ${report.incomplete}`);
  return lines;
}
