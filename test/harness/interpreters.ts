/**
 * Which real Lua interpreters the tests run under. Every interpreter found on the PATH is used;
 * in CI (or with LUAPANDA_REQUIRE_LUA=1) the six the project supports must all be there, so a
 * machine that lacks one fails loudly instead of silently testing less. Lua 5.5, which Debian
 * does not ship, is built by `npm run setup` into the project's `.interpreters/bin`, which this
 * module puts first on the PATH of the tests and of every process they start.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { NATIVE_ABIS, nativeBuildFile } from '../../src/session/link/nativeBuilds';

export interface LuaInterpreter {
  /** Command name on the PATH, e.g. `lua5.4`. */
  readonly command: string;
  /** What `_VERSION` (and `jit.version`) report. */
  readonly version: string;
  readonly isLuaJIT: boolean;
  /** The native accelerator build is put on `package.cpath` of the processes it runs. */
  readonly native?: boolean;
  /** How tests name it: `lua5.4` (plain), `lua5.4 pure` or `lua5.4 native` (runtime variants). */
  readonly label?: string;
}

/** This platform's native accelerator builds (scripts/build-native.mjs). */
export const NATIVE_DIR = path.resolve(
  __dirname,
  '..',
  '..',
  '..',
  'dist',
  'native',
  `${process.platform}-${process.arch}`,
);

/**
 * The interpreters CI has: Debian's lua5.1 … lua5.4 and luajit with lua-socket, and lua5.5 with
 * its luasocket built by `npm run setup` (scripts/build-lua55.mjs).
 */
export const REQUIRED_INTERPRETERS = [
  'lua5.1',
  'lua5.2',
  'lua5.3',
  'lua5.4',
  'lua5.5',
  'luajit',
] as const;
const CANDIDATES: readonly string[] = REQUIRED_INTERPRETERS;

/** Where `npm run setup` builds the interpreters Debian does not ship. */
export const LOCAL_INTERPRETERS_BIN = path.resolve(
  __dirname,
  '..',
  '..',
  '..',
  '.interpreters',
  'bin',
);
if (fs.existsSync(LOCAL_INTERPRETERS_BIN)) {
  const entries = (process.env.PATH ?? '').split(path.delimiter);
  if (!entries.includes(LOCAL_INTERPRETERS_BIN)) {
    process.env.PATH = [LOCAL_INTERPRETERS_BIN, ...entries].join(path.delimiter);
  }
}

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
        'Run `npm run setup` (it installs lua5.1 … lua5.4, luajit and lua-socket, and builds lua5.5 ' +
        'from the sources in ../shared/vendor or LUAPANDA_LUA55_SOURCES).',
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

/** The Lua C ABI of an interpreter's native build (LuaJIT uses 5.1's). */
export function nativeAbiOf(lua: LuaInterpreter): (typeof NATIVE_ABIS)[number] {
  if (lua.isLuaJIT) return '5.1';
  const m = /Lua (5\.[1-5])/.exec(lua.version);
  if (!m) throw new Error(`Unknown Lua version ${lua.version}`);
  return m[1] as (typeof NATIVE_ABIS)[number];
}

let warnedNoNative = false;

/**
 * Every interpreter twice for the runtime tests: with the pure-Lua hook and with the native
 * accelerator, since the accelerator must change nothing observable but speed. In CI (or with
 * LUAPANDA_REQUIRE_NATIVE=1) each interpreter's native build must exist; elsewhere a missing
 * build leaves out that variant, with a warning.
 */
export function runtimeVariants(): LuaInterpreter[] {
  const mustHaveNative = process.env.CI === 'true' || process.env.LUAPANDA_REQUIRE_NATIVE === '1';
  const variants: LuaInterpreter[] = [];
  for (const lua of luaInterpreters()) {
    variants.push({ ...lua, native: false, label: `${lua.command} pure` });
    const build = nativeBuildFile(NATIVE_DIR, nativeAbiOf(lua));
    if (fs.existsSync(build)) {
      variants.push({ ...lua, native: true, label: `${lua.command} native` });
    } else if (mustHaveNative) {
      throw new Error(
        `Missing native accelerator build ${build}. Run \`npm run compile\` (it needs gcc and ` +
          'the Lua headers: sudo apt-get install -y liblua5.1-0-dev liblua5.2-dev liblua5.3-dev liblua5.4-dev).',
      );
    } else if (!warnedNoNative) {
      warnedNoNative = true;
      console.warn(`No native accelerator build (${build}): native variants are left out.`);
    }
  }
  return variants;
}
