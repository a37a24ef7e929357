/**
 * Parses a Lua source for the line analysis: luaparse knows Lua 5.1–5.3 and LuaJIT, so 5.5's
 * `global` declarations are rewritten first (globalDeclarations.ts) and 5.4's
 * `<const>`/`<close>` attributes are blanked out with spaces (offsets and lines stay) and
 * remembered by the offset of their variable. A source that does not parse yields the parser's
 * message, with its line.
 */
import * as luaparse from 'luaparse';
import type { LocalAttributes } from './codeLines';
import { rewriteGlobalDeclarations } from './globalDeclarations';
import { LuaTokens, LuaparseVersion } from './luaTokens';

export interface ParsedSource {
  readonly chunk: luaparse.Chunk;
  readonly tokens: LuaTokens;
  readonly attributes: LocalAttributes;
}

export type ParseResult = { ok: true; parsed: ParsedSource } | { ok: false; message: string };

/** luaparse's version for each dialect family (5.4 parses as 5.3 once attributes are blanked). */
export function parseSource(source: string, luaVersion: LuaparseVersion): ParseResult {
  try {
    const { text, attributes } = blankAttributes(
      rewriteGlobalDeclarations(stripShebang(source)),
      luaVersion,
    );
    const chunk = luaparse.parse(text, {
      luaVersion,
      locations: true,
      ranges: true,
      comments: false,
    });
    return { ok: true, parsed: { chunk, tokens: new LuaTokens(text, luaVersion), attributes } };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/** `#!…` on the first line is skipped by Lua's loader; blanked so lines stay. */
function stripShebang(source: string): string {
  if (!source.startsWith('#')) return source;
  const end = source.indexOf('\n');
  return ' '.repeat(end < 0 ? source.length : end) + (end < 0 ? '' : source.slice(end));
}

/** Finds `local name <attr>` (and `, name <attr>`) token runs and blanks the `<attr>` part. */
function blankAttributes(
  source: string,
  luaVersion: LuaparseVersion,
): { text: string; attributes: Map<number, 'const' | 'close'> } {
  const attributes = new Map<number, 'const' | 'close'>();
  if (!source.includes('<')) return { text: source, attributes };
  const tokens = new LuaTokens(source, luaVersion).all();
  const chars = source.split('');
  for (let i = 0; i < tokens.length; i++) {
    if (tokens[i].value !== 'local' || tokens[i + 1]?.value === 'function') continue;
    // local NAME [<attr>] {, NAME [<attr>]}
    let j = i + 1;
    while (j < tokens.length) {
      const name = tokens[j];
      const [open, attr, close] = [tokens[j + 1], tokens[j + 2], tokens[j + 3]];
      j++;
      if (open?.value === '<' && close?.value === '>') {
        if (attr.value !== 'const' && attr.value !== 'close') break;
        attributes.set(name.start, attr.value);
        for (let k = open.start; k < close.end; k++) chars[k] = ' ';
        j += 3;
      }
      if (tokens[j]?.value !== ',') break;
      j++;
    }
  }
  return { text: chars.join(''), attributes };
}
