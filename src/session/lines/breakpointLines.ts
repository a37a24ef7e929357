/**
 * Where a breakpoint on a line of a Lua file binds: on that line when Lua has code there, else on
 * the next line with code of the same function (the innermost one around the line), else nowhere
 * — with a message that says why. The lines with code come from codeLines.ts for the runtime's
 * dialect; while the dialect is not known (no session yet, upstream's runtime), a line counts as
 * code when it is code in any dialect, so only lines that are code nowhere move.
 */
import { FunctionLines, codeLines } from './codeLines';
import { LUA_DIALECTS, LuaDialect, rulesFor } from './luaDialect';
import { ParseResult, parseSource } from './luaSource';
import type { LuaparseVersion } from './luaTokens';

/** The function a breakpoint binds in, by its line range (`first` 0 is the main chunk). */
export interface TargetFunction {
  readonly first: number;
  readonly last: number;
}

export type LineBinding =
  /** Binds on `line` (the requested one, or the next line with code, said in `moved`). */
  | { kind: 'code'; line: number; target: TargetFunction; moved?: string }
  /** Cannot bind: past the end, or no code at or after the line in its function. */
  | { kind: 'none'; message: string }
  /** The source could not be read or parsed: the line is used as it is. */
  | { kind: 'unchecked'; message: string };

const PARSER: Record<LuaDialect, LuaparseVersion> = {
  '5.1': '5.1',
  '5.2': '5.2',
  '5.3': '5.3',
  // luaparse knows 5.3; the 5.4 attributes are blanked before parsing (luaSource.ts).
  '5.4': '5.3',
  // 5.5's `global` declarations are rewritten to 5.3 first too (luaSource.ts).
  '5.5': '5.3',
  luajit: 'LuaJIT',
};

/** The analysis of one version of a source file; dialects are worked out when first asked. */
export class SourceLines {
  private readonly lines: string[];
  private readonly parses = new Map<LuaparseVersion, ParseResult>();
  private readonly byDialect = new Map<LuaDialect, FunctionLines[] | string>();
  private tokenLines: Set<number> | undefined;

  constructor(private readonly text: string) {
    this.lines = text.split(/\r\n|\r|\n/);
    // A final newline does not start a line of its own.
    if (this.lines.length > 1 && this.lines[this.lines.length - 1] === '') this.lines.pop();
  }

  get lineCount(): number {
    return this.lines.length;
  }

  /** Where a breakpoint on `line` binds under `dialect` (undefined: not known yet). */
  bind(line: number, dialect?: LuaDialect): LineBinding {
    if (line > this.lineCount) {
      return {
        kind: 'none',
        message: `Line ${line} is past the end of the file (${this.lineCount} lines).`,
      };
    }
    const functions = this.functions(dialect);
    if (typeof functions === 'string') {
      return {
        kind: 'unchecked',
        message:
          `The file could not be parsed (${functions}), so line ${line} is not checked for ` +
          'code; the breakpoint is set on it as it is.',
      };
    }
    const target = innermost(functions, line);
    // The final return after a `return` is code that never runs.
    const code = [...target.lines].filter((l) => l !== target.deadEnd);
    if (code.includes(line)) return { kind: 'code', line, target: rangeOf(target) };
    const next = code.filter((l) => l > line).sort((a, b) => a - b)[0];
    if (next === undefined) {
      return {
        kind: 'none',
        message:
          line === target.deadEnd
            ? `Line ${line} (${this.describe(line)}) is never reached: ` +
              `${this.describeFunction(target)} returns before it. Set the breakpoint on its ` +
              '`return` line to stop when it returns.'
            : `Line ${line} (${this.describe(line)}) has no code, and no line after it in ` +
              `${this.describeFunction(target)} has.`,
      };
    }
    return {
      kind: 'code',
      line: next,
      target: rangeOf(target),
      moved:
        `Moved from line ${line} (${this.describe(line)}) to line ${next} ` +
        `(${this.describe(next)}): Lua has no code on line ${line}.`,
    };
  }

  /** What a line holds, for messages: `code`, "blank", "a comment". */
  describe(line: number): string {
    const text = (this.lines[line - 1] ?? '').trim();
    if (text === '') return 'blank';
    if (!this.touched().has(line)) return 'a comment';
    return `\`${text.length > 40 ? `${text.slice(0, 39)}…` : text}\``;
  }

  /** The code lines of every function under `dialect` (a parser message when it fails). */
  functions(dialect?: LuaDialect): FunctionLines[] | string {
    if (dialect) return this.functionsOf(dialect);
    // Not known: a line has code when it has code in any dialect that parses the file.
    const parsed = LUA_DIALECTS.map((d) => this.functionsOf(d));
    const ok = parsed.filter((p): p is FunctionLines[] => typeof p !== 'string');
    if (ok.length === 0) return parsed[3] as string;
    return union(ok);
  }

  private functionsOf(dialect: LuaDialect): FunctionLines[] | string {
    let result = this.byDialect.get(dialect);
    if (result === undefined) {
      const parse = this.parse(PARSER[dialect]);
      result = parse.ok
        ? codeLines(
            parse.parsed.chunk,
            parse.parsed.tokens,
            rulesFor(dialect),
            parse.parsed.attributes,
          )
        : parse.message;
      this.byDialect.set(dialect, result);
    }
    return result;
  }

  private parse(version: LuaparseVersion): ParseResult {
    let result = this.parses.get(version);
    if (!result) {
      result = parseSource(this.text, version);
      this.parses.set(version, result);
    }
    return result;
  }

  /** Lines that hold (part of) a token: the others are blank or comments. */
  private touched(): Set<number> {
    if (!this.tokenLines) {
      const parse = [...this.parses.values()].find((p) => p.ok) ?? this.parse('5.3');
      this.tokenLines = parse.ok ? parse.parsed.tokens.coveredLines() : new Set();
    }
    return this.tokenLines;
  }

  private describeFunction(fn: FunctionLines): string {
    if (fn.first === 0) return 'the main chunk';
    return `the function at lines ${fn.first}–${fn.last} (${this.describe(fn.first)})`;
  }
}

/** The innermost function whose lines include `line` (the main chunk includes every line). */
function innermost(functions: FunctionLines[], line: number): FunctionLines {
  let best = functions[0];
  for (const fn of functions) {
    if (fn.first === 0 || fn.first > line || fn.last < line) continue;
    if (
      best.first === 0 ||
      fn.first > best.first ||
      (fn.first === best.first && fn.last < best.last)
    ) {
      best = fn;
    }
  }
  return best;
}

function rangeOf(fn: FunctionLines): TargetFunction {
  return { first: fn.first, last: fn.first === 0 ? 0 : fn.last };
}

/** Per function (the same ranges in every dialect), the lines that have code in any dialect. */
function union(all: FunctionLines[][]): FunctionLines[] {
  const byRange = new Map<
    string,
    { first: number; last: number; lines: Set<number>; deadEnd?: number }
  >();
  for (const functions of all) {
    for (const fn of functions) {
      const key = fn.first === 0 ? 'main' : `${fn.first}-${fn.last}`;
      const entry = byRange.get(key) ?? { first: fn.first, last: fn.last, lines: new Set() };
      for (const line of fn.lines) entry.lines.add(line);
      if (fn.deadEnd !== undefined) entry.deadEnd = fn.deadEnd;
      byRange.set(key, entry);
    }
  }
  const main = byRange.get('main');
  byRange.delete('main');
  return [...(main ? [main] : []), ...byRange.values()];
}
