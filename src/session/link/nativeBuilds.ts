/**
 * Where the native accelerator builds of the Lua runtime live (scripts/build-native.mjs writes
 * `<dist>/native/<platform>-<arch>/<5.1|…|5.5>/luapanda_native<abi>.so`, next to the
 * bundled `<dist>/lua/LuaPanda.lua`), and how an interpreter is told to find them.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

/** The Lua C ABIs built (LuaJIT uses 5.1's). */
export const NATIVE_ABIS = ['5.1', '5.2', '5.3', '5.4', '5.5'] as const;

/** The folder of this platform's builds next to the runtime folder, or undefined if none. */
export function nativeDirFor(runtimeDir: string): string | undefined {
  const dir = path.join(path.dirname(runtimeDir), 'native', `${process.platform}-${process.arch}`);
  return fs.existsSync(dir) ? dir : undefined;
}

/** The build file for one ABI in `nativeDir`. */
export function nativeBuildFile(nativeDir: string, abi: (typeof NATIVE_ABIS)[number]): string {
  return path.join(nativeDir, abi, `luapanda_native${abi.replace('.', '')}.so`);
}

/**
 * Lua code that puts the build matching the running interpreter first on `package.cpath`
 * (the folder is chosen by `_VERSION`; LuaJIT reports 5.1).
 */
export function nativeCpathCode(nativeDir: string, luaString: (text: string) => string): string {
  const prefix = luaString(nativeDir + path.sep);
  const tail = luaString(`${path.sep}?.so;`);
  return `package.cpath = ${prefix} .. (_VERSION:match("%d+%.%d+") or "") .. ${tail} .. package.cpath`;
}

/** Environment variables with the same effect, for every interpreter version at once. */
export function nativeCpathEnv(nativeDir: string, base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const abi of NATIVE_ABIS) {
    const name = abi === '5.1' ? 'LUA_CPATH' : `LUA_CPATH_${abi.replace('.', '_')}`;
    const previous = base[name] ?? (abi === '5.1' ? undefined : base.LUA_CPATH);
    env[name] = `${path.join(nativeDir, abi, '?.so')};${previous ?? ';'}`;
  }
  return env;
}
