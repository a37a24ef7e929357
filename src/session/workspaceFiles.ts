/**
 * The Lua files of a workspace, found by a bounded scan of its folder, so that the bare file
 * names and module paths the Lua side reports can be mapped to real files (protocol doc 11.6).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

const SKIPPED = new Set(['node_modules', '.git', '.svn', '.hg', 'out', '.vscode-test']);
const MAX_FILES = 50_000;
const MAX_DEPTH = 20;

/** Lua sources under `root`: `.lua`, `.lua.txt`, `.lua.bytes` and `.<luaFileExtension>`. */
export function scanLuaFiles(root: string, luaFileExtension = ''): string[] {
  const suffixes = ['.lua', '.lua.txt', '.lua.bytes'];
  if (luaFileExtension !== '') suffixes.push(`.${luaFileExtension.replace(/^\./, '')}`);
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > MAX_DEPTH || found.length >= MAX_FILES) return;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (found.length >= MAX_FILES) return;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) walk(full, depth + 1);
      } else if (suffixes.some((s) => entry.name.toLowerCase().endsWith(s))) {
        found.push(full);
      }
    }
  };
  walk(root, 0);
  return found;
}
