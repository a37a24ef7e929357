/**
 * Tidies the variable lists of a runtime that does not page them (upstream's LuaPanda.lua) the
 * way our runtime tidies its own: table fields and globals in a stable order instead of `pairs`
 * order (which changes from run to run: Lua 5.4 seeds its string hashes at random), fields named
 * as Lua writes keys (`name`, `[1]`, `["a b"]`, not upstream's `"name"`, `1`), and locals
 * without the interpreter's internal slots (`(temporary)`, `(*temporary)`, `(for state)`…:
 * upstream filters only 5.1's `(*temporary)`, so the hook's own registers and the loops' hidden
 * counters showed up among the user's locals). The order mirrors lua/luapanda/variables.lua:
 * numeric keys, then string keys, then the rest, and the metatable entry last.
 */
import type { LuaVariable } from '../../protocol';
import { METATABLE_ENTRY, upstreamKeyToLua } from './luaKeys';

/** Which list: a frame's locals or upvalues, the globals, or the children of a value. */
export type ListingKind = 'locals' | 'upvalues' | 'globals' | 'children';

export function tidyListing(kind: ListingKind, list: readonly LuaVariable[]): LuaVariable[] {
  switch (kind) {
    case 'locals':
      return list.filter((v) => !isInternalLocal(v.name));
    case 'upvalues':
      return [...list];
    case 'globals':
      return sortByKey(list);
    case 'children':
      return sortByKey(list).map((v) => ({ ...v, name: upstreamKeyToLua(v.name) }));
  }
}

/** Interpreter slots: `(temporary)`, `(*temporary)`, `(C temporary)`, `(for index)`… */
function isInternalLocal(name: string): boolean {
  return name.startsWith('(');
}

/** Rank, then value to compare within the rank, of a listed key as upstream names it. */
function sortKey(name: string): [number, number | string] {
  if (name === METATABLE_ENTRY) return [4, ''];
  if (/^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(name)) return [0, Number(name)];
  // Upstream wraps string keys of table fields in double quotes (protocol doc 9.1).
  if (name.length >= 2 && name.startsWith('"') && name.endsWith('"')) return [1, name.slice(1, -1)];
  if (name === 'false' || name === 'true') return [2, name];
  return [3, name];
}

function sortByKey(list: readonly LuaVariable[]): LuaVariable[] {
  const keyed = list.map((variable) => ({ variable, key: sortKey(variable.name) }));
  keyed.sort((a, b) => {
    if (a.key[0] !== b.key[0]) return a.key[0] - b.key[0];
    const [x, y] = [a.key[1], b.key[1]];
    if (x < y) return -1;
    return x > y ? 1 : 0;
  });
  return keyed.map((k) => k.variable);
}
