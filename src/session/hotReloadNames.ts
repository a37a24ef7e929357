/**
 * A hot reload's report in the names the call stack uses, and which functions it changed. The
 * runtime names what it replaced by where it found it (`entity.new` for a field of the module
 * `entity`, `entity:update`); the call stack names a frame by its definition in the source
 * (`Entity:update`, functionNames.ts). Here each entry whose line is a definition's first line
 * takes that definition's name, and a replaced function is marked `changed` or not by comparing
 * its text with the same definition in the text the program ran before (runningSources.ts).
 */
import { Definition, definitionsOf } from './stop/functionNames';
import type { HotReloadReport, ReloadEntry } from './hotReload';

/** A chunk's definitions, or none when luaparse cannot read it (the runtime's names stay). */
function definitionsIn(text: string | undefined): Definition[] | undefined {
  if (text === undefined) return undefined;
  try {
    return definitionsOf(text);
  } catch {
    return undefined;
  }
}

function linesOf(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** A definition's text, line by line without trailing blanks (a moved function is the same). */
function bodyOf(lines: readonly string[], d: Definition): string {
  return lines
    .slice(d.firstLine - 1, d.lastLine)
    .map((l) => l.trimEnd())
    .join('\n');
}

/** The n-th definition named `text`, counting in source order (two `local function f` in a file). */
function nthNamed(definitions: readonly Definition[], d: Definition): number {
  let n = 0;
  for (const other of definitions) {
    if (other === d) return n;
    if (other.kind === d.kind && other.text === d.text) n += 1;
  }
  return n;
}

class Side {
  private readonly lines: string[];
  constructor(
    text: string,
    readonly definitions: Definition[],
  ) {
    this.lines = linesOf(text);
  }
  at(line: number | undefined): Definition | undefined {
    return line === undefined ? undefined : this.definitions.find((d) => d.firstLine === line);
  }
  named(d: Definition, n: number): Definition | undefined {
    return this.definitions.filter((o) => o.kind === d.kind && o.text === d.text)[n];
  }
  body(d: Definition): string {
    return bodyOf(this.lines, d);
  }
}

function sideOf(text: string | undefined): Side | undefined {
  const definitions = definitionsIn(text);
  return text !== undefined && definitions ? new Side(text, definitions) : undefined;
}

function renamed(entry: ReloadEntry, d: Definition | undefined): ReloadEntry {
  return d && d.kind !== 'anonymous' ? { ...entry, name: d.text } : entry;
}

/**
 * The report with its entries named by their definitions — in `newText` for the new functions
 * (replaced, added, not found), in `oldText` for the old ones still running — and each replaced
 * function marked `changed` when `oldText` is known. (Entries not replaced stay as the runtime
 * named them: their lines are the old version's or the new one's, depending on why.)
 */
export function nameReport(
  report: HotReloadReport,
  newText: string,
  oldText: string | undefined,
): HotReloadReport {
  if (report.status !== 'success') return report;
  const now = sideOf(newText);
  const before = sideOf(oldText);
  const byNew = (entries: readonly ReloadEntry[]) =>
    now ? entries.map((e) => renamed(e, now.at(e.line))) : entries;
  const byOld = (entries: readonly ReloadEntry[]) =>
    before ? entries.map((e) => renamed(e, before.at(e.line))) : entries;
  const replaced = report.replaced.map((e): ReloadEntry => {
    const d = now?.at(e.line);
    const entry = renamed(e, d);
    if (!now || !before || !d || d.kind === 'anonymous') return entry;
    const old = before.named(d, nthNamed(now.definitions, d));
    return { ...entry, changed: old === undefined || before.body(old) !== now.body(d) };
  });
  return {
    ...report,
    replaced,
    added: byNew(report.added),
    notFound: byNew(report.notFound),
    active: byOld(report.active),
  };
}
