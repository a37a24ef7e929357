#!/usr/bin/env node
/**
 * Builds the bench-only floor hooks (bench/native/floorhooks.c) once per Lua C ABI whose headers
 * build-native finds: out/bench/native/<5.1|5.2|5.3|5.4>/floorhooks.so (the 5.1 build also
 * serves LuaJIT). Prints one JSON line: {"<version>": "<folder>", ...} of the builds present;
 * an ABI without headers or compiler is left out (the bench then prints no floor for it).
 *
 * Usage: node scripts/build-floorhooks.mjs
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ABIS, LINK_FLAGS, compilerWorks, findHeaders } from './build-native.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'bench', 'native', 'floorhooks.c');
const outRoot = path.join(root, 'out', 'bench', 'native');
const cc = process.env.CC || 'cc';

const built = {};
if (process.platform !== 'win32' && compilerWorks(cc)) {
  for (const abi of ABIS) {
    const include = findHeaders(abi);
    if (!include) continue;
    const dir = path.join(outRoot, abi.version);
    const output = path.join(dir, 'floorhooks.so');
    const fresh = existsSync(output) && statSync(output).mtimeMs >= statSync(source).mtimeMs;
    if (!fresh) {
      mkdirSync(dir, { recursive: true });
      const result = spawnSync(
        cc,
        ['-O2', '-fPIC', '-Wall', `-I${include}`, ...LINK_FLAGS, '-o', output, source],
        { encoding: 'utf8' },
      );
      if (result.status !== 0) {
        console.error(`build-floorhooks: Lua ${abi.version}: ${result.stderr}`);
        continue;
      }
    }
    built[abi.version] = dir;
  }
}
console.log(JSON.stringify(built));
