/**
 * Table keys written as Lua writes them (`name`, `[1]`, `["a b"]`, `[true]`), for the children
 * of a table listed by upstream's LuaPanda.lua, which names string keys `"name"` and other keys
 * by `tostring`. Our runtime names them this way itself (lua/luapanda/preview.lua).
 */

const KEYWORDS: ReadonlySet<string> = new Set(
  (
    'and break do else elseif end false for function goto if in local nil not or repeat ' +
    'return then true until while'
  ).split(' '),
);

/** A reserved word of Lua (`local`, `end`, …). */
export function isLuaKeyword(word: string): boolean {
  return KEYWORDS.has(word);
}

/** A name Lua accepts bare: `t.name`, `{name = 1}`. */
export function isLuaIdentifier(name: string): boolean {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && !KEYWORDS.has(name);
}

const ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '"': '\\"',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/** `text` as a Lua string literal in double quotes. */
export function luaStringLiteral(text: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is escaped here
  const body = text.replace(/[\\"\n\r\t]|[\x00-\x1f\x7f](\d?)/g, (match, digit?: string) => {
    const escaped = ESCAPES[match];
    if (escaped !== undefined) return escaped;
    const code = match.charCodeAt(0);
    // A decimal escape takes up to three digits: pad it when a digit follows.
    return digit ? `\\${String(code).padStart(3, '0')}${digit}` : `\\${code}`;
  });
  return `"${body}"`;
}

/** The metatable entry upstream (and our runtime) lists among a table's children. */
export const METATABLE_ENTRY = '_Metatable_';

/** A child name as upstream lists it (`"name"`, `1`, `true`, `table: 0x…`), as Lua writes the key. */
export function upstreamKeyToLua(name: string): string {
  if (name === METATABLE_ENTRY) return name;
  if (name.length >= 2 && name.startsWith('"') && name.endsWith('"')) {
    const key = name.slice(1, -1);
    return isLuaIdentifier(key) ? key : `[${luaStringLiteral(key)}]`;
  }
  return `[${name}]`;
}
