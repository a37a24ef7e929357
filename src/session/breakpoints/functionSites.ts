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

/** What is known of a file's version without its text: which names it may define. */
interface FileWords {
  readonly stamp: string;
  readonly words: Map<string, boolean>;
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
  /** Every file's words asked about so far, so that an unchanged file is not read again. */
  private readonly known = new Map<string, FileWords>();

  /**
   * The definition sites of each name among `files` (names that are not Lua function names get
   * none). Files are read once per change; only those where a name is written as a definition
   * may write it are parsed.
   */
  async find(
    names: readonly string[],
    files: readonly string[],
    dialect: LuaDialect | undefined,
  ): Promise<Map<string, FunctionSite[]>> {
    const wanted = new Map<string, { normal: string; parts: string[] }>();
    for (const name of names) {
      const parts = partsOf(name);
      if (parts) wanted.set(name, { normal: parts.join('.'), parts });
    }
    const found = new Map<string, FunctionSite[]>(names.map((n) => [n, []]));
    if (wanted.size === 0) return found;
    const normals = [...new Set([...wanted.values()].map((w) => w.normal))];
    for (let i = 0; i < files.length; i += BATCH) {
      const batch = files.slice(i, i + BATCH);
      const analyses = await Promise.all(batch.map((file) => this.read(file, normals)));
      batch.forEach((file, j) => {
        const analysis = analyses[j];
        if (!analysis) return;
        const holds = this.known.get(file)?.words;
        for (const [name, { normal }] of wanted) {
          if (!holds?.get(normal)) continue;
          this.files.set(file, analysis);
          for (const site of sitesIn(file, analysis, normal, dialect)) found.get(name)?.push(site);
        }
      });
    }
    return found;
  }

  /**
   * A file's text when one of the names (`normals`) may be defined in it, else undefined. An
   * unchanged file whose answer is known is not read again; one that held a name keeps its
   * analysis.
   */
  private async read(file: string, normals: readonly string[]): Promise<FileAnalysis | undefined> {
    try {
      const stat = await fs.stat(file);
      const stamp = `${stat.size}:${stat.mtimeMs}`;
      if (stat.size > MAX_SOURCE_BYTES) return undefined;
      let entry = this.known.get(file);
      if (entry?.stamp !== stamp) {
        entry = { stamp, words: new Map() };
        this.known.set(file, entry);
        this.files.delete(file);
      }
      const holds = entry.words;
      const cached = this.files.get(file);
      let text = cached?.text;
      if (normals.some((n) => !holds.has(n))) {
        text ??= await fs.readFile(file, 'utf8');
        for (const n of normals) if (!holds.has(n)) holds.set(n, mayDefine(text, n));
      }
      if (!normals.some((n) => holds.get(n))) return undefined;
      if (cached) return cached;
      return { stamp, text: text ?? (await fs.readFile(file, 'utf8')) };
    } catch {
      this.files.delete(file);
      this.known.delete(file);
      return undefined;
    }
  }
}

/**
 * Whether `text` may define the function named `normal` (`a.b.c`), before it is parsed: the
 * name as written (`a.b.c`, `a.b:c`, spaces allowed), or, for a field of a table constructor
 * (`local a = { b = { c = function` …), every part as a word and the last one given a function.
 */
function mayDefine(text: string, normal: string): boolean {
  const parts = normal.split('.');
  const word = (p: string) => `(?:^|[^\\w])${p}(?:$|[^\\w])`;
  if (new RegExp(word(parts.join('\\s*[.:]\\s*'))).test(text)) return true;
  if (parts.length === 1) return false;
  const last = parts[parts.length - 1];
  return (
    new RegExp(`(?:^|[^\\w])${last}\\s*=\\s*function(?:$|[^\\w])`).test(text) &&
    parts.every((p) => new RegExp(word(p)).test(text))
  );
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
