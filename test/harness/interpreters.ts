/**
 * Which real Lua interpreters the tests run under. Every interpreter found on the PATH is used;
 * in CI (or with LUAPANDA_REQUIRE_LUA=1) the three the project supports must all be there, so a
 * machine that lacks one fails loudly instead of silently testing less.
 */
import { spawnSync } from 'node:child_process';

export interface LuaInterpreter {
  /** Command name on the PATH, e.g. `lua5.4`. */
  readonly command: string;
  /** What `_VERSION` (and `jit.version`) report. */
  readonly version: string;
  readonly isLuaJIT: boolean;
}

/** The interpreters CI installs (Debian packages lua5.1 … lua5.4 and luajit, with lua-socket). */
export const REQUIRED_INTERPRETERS = ['lua5.1', 'lua5.2', 'lua5.3', 'lua5.4', 'luajit'] as const;
const CANDIDATES = ['lua5.1', 'lua5.2', 'lua5.3', 'lua5.4', 'luajit'];

let cached: LuaInterpreter[] | undefined;

export function luaInterpreters(): LuaInterpreter[] {
  if (cached) return cached;
  const found: LuaInterpreter[] = [];
  for (const command of CANDIDATES) {
    const probe = spawnSync(
      command,
      ['-e', 'require("socket"); io.write(_VERSION, jit and (" " .. jit.version) or "")'],
      { encoding: 'utf8', timeout: 10_000 },
    );
    if (probe.status === 0) {
      found.push({ command, version: probe.stdout.trim(), isLuaJIT: command === 'luajit' });
    }
  }
  const mustHaveAll = process.env.CI === 'true' || process.env.LUAPANDA_REQUIRE_LUA === '1';
  const missing = REQUIRED_INTERPRETERS.filter((name) => !found.some((i) => i.command === name));
  if (missing.length > 0 && mustHaveAll) {
    throw new Error(
      `Missing Lua interpreters (or their luasocket): ${missing.join(', ')}. ` +
        'Run `npm run setup` (or: sudo apt-get install -y lua5.1 lua5.2 lua5.3 lua5.4 luajit lua-socket).',
    );
  }
  if (found.length === 0) {
    throw new Error(
      'No Lua interpreter with luasocket was found. Run `npm run setup` ' +
        '(or: sudo apt-get install -y lua5.1 lua5.2 lua5.3 lua5.4 luajit lua-socket).',
    );
  }
  cached = found;
  return found;
}
