/**
 * The tokens of a Lua source, by offset, for the line analysis (codeLines.ts): Lua's compilers
 * give an instruction the line of the token consumed last when they emit it, so the analysis
 * asks "which line does the token before (or after) this offset end on". luaparse's lexer does
 * the tokenising; a long string or long comment ends on its last line.
 */
import * as luaparse from 'luaparse';

/** luaparse.tokenTypes.EOF (the constant is missing from @types/luaparse). */
const EOF = 1;

export type LuaparseVersion = '5.1' | '5.2' | '5.3' | 'LuaJIT';

export interface Token {
  readonly start: number;
  readonly end: number;
  /** The line the token ends on. */
  readonly line: number;
  /** The line it starts on (a long string may span lines). */
  readonly firstLine: number;
  readonly value: string;
}

/** luaparse's token, with the end line it sets on multi-line strings (missing from its types). */
interface LexedToken extends luaparse.Token {
  readonly lastLine?: number;
}

export class LuaTokens {
  private readonly tokens: Token[] = [];

  constructor(source: string, luaVersion: LuaparseVersion) {
    const parser = luaparse.parse(source, { wait: true, luaVersion, comments: false });
    for (;;) {
      const token = parser.lex() as LexedToken;
      if (token.type === EOF) break;
      this.tokens.push({
        start: token.range[0],
        end: token.range[1],
        line: token.lastLine ?? token.line,
        firstLine: token.line,
        value: String(token.value),
      });
    }
  }

  all(): readonly Token[] {
    return this.tokens;
  }

  /** The line of the last token that ends at or before `offset` (1 when there is none). */
  lineBefore(offset: number): number {
    const i = this.lastEndingBy(offset);
    return i >= 0 ? this.tokens[i].line : 1;
  }

  /** The first token that starts at or after `offset`. */
  after(offset: number): Token | undefined {
    let lo = 0;
    let hi = this.tokens.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.tokens[mid].start < offset) lo = mid + 1;
      else hi = mid;
    }
    return this.tokens[lo];
  }

  /** The line of the first token at or after `offset` (the last line when there is none). */
  lineAfter(offset: number): number {
    return this.after(offset)?.line ?? this.lastLine();
  }

  /** The line of the file's last token (0 for a file without tokens). */
  lastLine(): number {
    return this.tokens.at(-1)?.line ?? 0;
  }

  /** The lines that hold part of a token (the others are blank or comments). */
  coveredLines(): Set<number> {
    const lines = new Set<number>();
    for (const t of this.tokens) {
      for (let line = t.firstLine; line <= t.line; line++) lines.add(line);
    }
    return lines;
  }

  private lastEndingBy(offset: number): number {
    let lo = 0;
    let hi = this.tokens.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.tokens[mid].end <= offset) lo = mid + 1;
      else hi = mid;
    }
    return lo - 1;
  }
}
