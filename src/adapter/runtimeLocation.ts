/**
 * Where the Lua runtime (`LuaPanda.lua`) that a launched program preloads lives: the bundle in
 * `dist/lua/`, found relative to this file whether it runs from `out/` (tsc) or `dist/`
 * (webpack), or a folder named by `LUAPANDA_RUNTIME_DIR` or the `runtimePath` attribute.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export function findRuntimeDir(explicit?: string): string {
  const candidates = [
    explicit,
    process.env.LUAPANDA_RUNTIME_DIR,
    path.resolve(__dirname, '..', '..', '..', 'dist', 'lua'),
    path.resolve(__dirname, '..', 'lua'),
    path.resolve(__dirname, 'lua'),
  ].filter((c): c is string => c !== undefined && c !== '');
  const found = candidates.find((dir) => fs.existsSync(path.join(dir, 'LuaPanda.lua')));
  // Not found: the first candidate, so the error message names a real place to look.
  return found ?? candidates[0];
}
