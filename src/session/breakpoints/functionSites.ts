/**
 * Where the workspace's sources define the functions a function breakpoint names: the same
 * definition names the call stack shows (`Entity:update` for a method of a local class,
 * `helper` for `local function helper`, `Player.move` for `Player.move = function`), read from
 * the files with luaparse. The runtime cannot reach local classes by name, so each site goes to it
 * as a file and line range it recognises a function by, before its code loads and after.
 */
import { promises as fs } from 'node:fs';
import { SourceLines } from '../lines/breakpointLines';
import type { LuaDialect } from '../lines/luaDialect';
import { Definition, definitionsOf } from '../stop/functionNames';

/** A function definition a name denotes: its file, `linedefined`/`lastlinedefined`, first line
 * with code (where a stop on entry shows). */
export interface FunctionSite {
  readonly path: string;
  readonly first: number;
  readonly last: number;
  readonly line: number;
}

interface FileAnalysis {
  readonly stamp: string;
  readonly text: string;
  definitions?: Definition[];
  lines?: SourceLines;
}

/** Sources larger than this are not read for definitions (a generated file, a data dump). */
const MAX_SOURCE_BYTES = 2 * 1024 * 1024;
/** Files read at once while searching. */
const BATCH = 32;

/** `Entity:update` and `Entity.update` are the same field; spaces around parts do not count. */
export function normalName(name: string): string {
  return name.replace(/\s+/g, '').replace(':', '.');
}

/** The parts of a function name (identifiers), or undefined when it is not one. */
function partsOf(name: string): string[] | undefined {
  const parts = normalName(name).split('.');
  return parts.every((p) => /^[A-Za-z_]\w*$/.test(p)) ? parts : undefined;
}

export class FunctionSites {
  /** The files that held a name's words: their analyses, kept until the file changes. */
  private readonly files = new Map<string, FileAnalysis>();

  /**
   * The definition sites of each name among `files` (names that are not Lua function names get
   * none). Files are read once per change; only those that hold every part of a name as a word
   * are parsed.
   */
  async find(
    names: readonly string[],
    files: readonly string[],
    dialect: LuaDialect | undefined,
  ): Promise<Map<string, FunctionSite[]>> {
    const wanted = new Map<string, { normal: string; words: RegExp[] }>();
    for (const name of names) {
      const parts = partsOf(name);
      if (parts) {
        wanted.set(name, {
          normal: parts.join('.'),
          words: parts.map((p) => new RegExp(`(^|[^\\w])${p}($|[^\\w])`)),
        });
      }
    }
    const found = new Map<string, FunctionSite[]>(names.map((n) => [n, []]));
    if (wanted.size === 0) return found;
    for (let i = 0; i < files.length; i += BATCH) {
      const batch = files.slice(i, i + BATCH);
      const analyses = await Promise.all(batch.map((file) => this.read(file)));
      batch.forEach((file, j) => {
        const analysis = analyses[j];
        if (!analysis) return;
        for (const [name, { normal, words }] of wanted) {
          if (!words.every((w) => w.test(analysis.text))) continue;
          this.files.set(file, analysis);
          for (const site of sitesIn(file, analysis, normal, dialect)) found.get(name)?.push(site);
        }
      });
    }
    return found;
  }

  /** A file's text and, for a file that held a name before, its analysis (kept per change). */
  private async read(file: string): Promise<FileAnalysis | undefined> {
    try {
      const stat = await fs.stat(file);
      const stamp = `${stat.size}:${stat.mtimeMs}`;
      const cached = this.files.get(file);
      if (cached?.stamp === stamp) return cached;
      this.files.delete(file);
      if (stat.size > MAX_SOURCE_BYTES) return undefined;
      return { stamp, text: await fs.readFile(file, 'utf8') };
    } catch {
      this.files.delete(file);
      return undefined;
    }
  }
}

/** The functions of one file whose definition name is `normal`, with the lines Lua gives them. */
function sitesIn(
  file: string,
  analysis: FileAnalysis,
  normal: string,
  dialect: LuaDialect | undefined,
): FunctionSite[] {
  if (analysis.definitions === undefined) {
    try {
      analysis.definitions = definitionsOf(analysis.text);
    } catch {
      analysis.definitions = []; // not Lua luaparse can read: no sites here
    }
  }
  const matching = analysis.definitions.filter(
    (d) => d.kind !== 'anonymous' && normalName(d.text) === normal,
  );
  if (matching.length === 0) return [];
  analysis.lines ??= new SourceLines(analysis.text);
  const functions = analysis.lines.functions(dialect);
  return matching.map((d) => {
    // Lua's `linedefined` is the line of `function` for a statement, of `(` for an expression
    // or a local function: the code-line model knows which; its function that ends where the
    // definition ends and starts at or after it is this one.
    const fn =
      typeof functions === 'string'
        ? undefined
        : functions
            .filter((f) => f.first > 0 && f.last === d.lastLine && f.first >= d.firstLine)
            .sort((a, b) => a.first - b.first)[0];
    if (!fn) return { path: file, first: d.firstLine, last: d.lastLine, line: d.firstLine };
    const code = [...fn.lines].filter((l) => l !== fn.deadEnd);
    const line = code.length > 0 ? Math.min(...code) : fn.last;
    return { path: file, first: fn.first, last: fn.last, line };
  });
}
