/**
 * Lua 5.5's `global` declarations, which luaparse (Lua 5.1–5.3, LuaJIT) does not know, rewritten
 * into what it reads with the same lines and offsets: `global function f` becomes `function f`
 * (the same code on the same line), `global x, y = 1, 2` the assignment `x, y = 1, 2`, and a
 * declaration without values (`global x`, `global <const> *`) blanks, as Lua emits no code for
 * it. In the default build of 5.5 `global` is no reserved word: like Lua's parser, only a
 * statement that starts with the name `global` followed by a name, `function`, `<` or `*` is a
 * declaration, so `global = 1` or `f(global * 2)` in older code stay as they are.
 */
import { LuaTokens, Token } from './luaTokens';

/** Tokens after which a name continues an expression, so it cannot start a statement. */
const CONTINUES_EXPRESSION = new Set([
  '=',
  ',',
  '(',
  '[',
  '{',
  '.',
  ':',
  '..',
  '+',
  '-',
  '*',
  '/',
  '//',
  '%',
  '^',
  '#',
  '&',
  '~',
  '|',
  '<<',
  '>>',
  '<',
  '<=',
  '>',
  '>=',
  '==',
  '~=',
  'and',
  'or',
  'not',
  'return',
  'local',
  'function',
  'for',
  'goto',
  '::',
  'in',
  'if',
  'elseif',
  'while',
  'until',
]);

/** The source with every `global` declaration rewritten (same length, same line breaks). */
export function rewriteGlobalDeclarations(source: string): string {
  if (!/\bglobal\b/.test(source)) return source;
  let tokens: readonly Token[];
  try {
    tokens = new LuaTokens(source, '5.3').all();
  } catch {
    return source; // not lexable: the parser says why
  }
  const chars = source.split('');
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (chars[k] !== '\n' && chars[k] !== '\r') chars[k] = ' ';
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.value !== 'global' || source.slice(token.start, token.end) !== 'global') continue;
    if (i > 0 && CONTINUES_EXPRESSION.has(tokens[i - 1].value)) continue;
    const next = tokens[i + 1];
    if (!next) continue;
    if (next.value === 'function') {
      blank(token.start, token.end);
      continue;
    }
    if (next.value !== '<' && next.value !== '*' && !isName(source, next)) continue;
    // global [<attr>] ( '*' | NAME [<attr>] {',' NAME [<attr>]} ['=' explist] )
    let j = i + 1;
    j = skipAttribute(tokens, j);
    if (tokens[j]?.value === '*') {
      blank(token.start, tokens[j].end);
      continue;
    }
    const kept: Array<[number, number]> = []; // names and commas kept for an assignment
    for (;;) {
      const name = tokens[j];
      if (!name || !isName(source, name)) break;
      kept.push([name.start, name.end]);
      j = skipAttribute(tokens, j + 1);
      if (tokens[j]?.value !== ',') break;
      kept.push([tokens[j].start, tokens[j].end]);
      j++;
    }
    const end = tokens[j - 1]?.end ?? token.end;
    if (tokens[j]?.value === '=') {
      // An assignment: the declaration's words go, the names and commas stay.
      const saved = kept.map(([from, to]) => source.slice(from, to));
      blank(token.start, end);
      kept.forEach(([from], k) => {
        for (let c = 0; c < saved[k].length; c++) chars[from + c] = saved[k][c];
      });
    } else {
      blank(token.start, end);
    }
  }
  return chars.join('');
}

/** Past an `<attr>` at `j` (a name between `<` and `>`), or `j` itself. */
function skipAttribute(tokens: readonly Token[], j: number): number {
  return tokens[j]?.value === '<' && tokens[j + 2]?.value === '>' ? j + 3 : j;
}

function isName(source: string, token: Token): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(source.slice(token.start, token.end));
}
