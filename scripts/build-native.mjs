#!/usr/bin/env node
/**
 * Builds the optional native accelerator of the Lua runtime (native/*.c) once per Lua C ABI whose
 * headers are found: dist/native/<platform>-<arch>/<5.1|…|5.5>/luapanda_native<51|…|55>.so.
 * The 5.1 build also serves LuaJIT (same C API; the module links against no Lua library, the
 * interpreter provides the symbols, as Debian's lua-socket does). Headers are looked up in the
 * usual places (Debian: liblua5.1-0-dev, liblua5.2-dev, liblua5.3-dev, liblua5.4-dev; 5.5's in
 * the project's `.interpreters/`, built by `npm run setup`) or in LUAPANDA_LUA_INCLUDE_5_1 … _5_5. A missing compiler or missing headers are reported and skipped:
 * the runtime then uses its pure-Lua hook. With CI=true or LUAPANDA_REQUIRE_NATIVE=1 every ABI
 * must build. Up-to-date outputs are not rebuilt.
 *
 * Usage: node scripts/build-native.mjs [--force]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { LUA55_INCLUDE } from './build-lua55.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sourceDir = path.join(root, 'native');
const platformDir = `${process.platform}-${process.arch}`;
const outRoot = path.join(root, 'dist', 'native', platformDir);
const force = process.argv.includes('--force');
const required = process.env.CI === 'true' || process.env.LUAPANDA_REQUIRE_NATIVE === '1';

export const ABIS = [
  { version: '5.1', num: 501, apt: 'liblua5.1-0-dev' },
  { version: '5.2', num: 502, apt: 'liblua5.2-dev' },
  { version: '5.3', num: 503, apt: 'liblua5.3-dev' },
  { version: '5.4', num: 504, apt: 'liblua5.4-dev' },
  // Debian ships no 5.5: `npm run setup` builds it with its headers (scripts/build-lua55.mjs).
  { version: '5.5', num: 505, local: LUA55_INCLUDE },
];

/** How a Lua C module is linked: its Lua symbols come from the interpreter that loads it. */
export const LINK_FLAGS =
  process.platform === 'darwin' ? ['-bundle', '-undefined', 'dynamic_lookup'] : ['-shared'];

function log(message) {
  console.log(`build-native: ${message}`);
}

/**
 * LUA_VERSION_NUM of a lua.h: a number up to 5.4, from 5.5 on computed from
 * LUA_VERSION_MAJOR_N and LUA_VERSION_MINOR_N.
 */
export function headerVersion(text) {
  const plain = /#define\s+LUA_VERSION_NUM\s+(\d+)/.exec(text);
  if (plain) return Number(plain[1]);
  const major = /#define\s+LUA_VERSION_MAJOR_N\s+(\d+)/.exec(text);
  const minor = /#define\s+LUA_VERSION_MINOR_N\s+(\d+)/.exec(text);
  return major && minor ? Number(major[1]) * 100 + Number(minor[1]) : undefined;
}

/** The folder holding lua.h for `abi`, or undefined. */
export function findHeaders(abi) {
  const plain = abi.version.replace('.', '');
  const env = process.env[`LUAPANDA_LUA_INCLUDE_${abi.version.replace('.', '_')}`];
  const candidates = [
    env,
    abi.local,
    `/usr/include/lua${abi.version}`,
    `/usr/local/include/lua${abi.version}`,
    `/usr/include/lua${plain}`,
    `/usr/local/include/lua${plain}`,
    `/opt/homebrew/include/lua${abi.version}`,
    `/opt/homebrew/opt/lua@${abi.version}/include/lua${abi.version}`,
  ].filter(Boolean);
  for (const dir of candidates) {
    const header = path.join(dir, 'lua.h');
    if (!existsSync(header)) continue;
    if (headerVersion(readFileSync(header, 'utf8')) === abi.num) return dir;
  }
  return undefined;
}

export function compilerWorks(cc = process.env.CC || 'cc') {
  const probe = spawnSync(cc, ['--version'], { stdio: 'ignore' });
  return probe.status === 0;
}

/** Builds every ABI whose headers exist; returns the problems met (none: all built). */
export function buildNative() {
  const sources = readdirSync(sourceDir)
    .filter((f) => f.endsWith('.c'))
    .map((f) => path.join(sourceDir, f));
  const inputs = [
    ...sources,
    ...readdirSync(sourceDir)
      .filter((f) => f.endsWith('.h'))
      .map((f) => path.join(sourceDir, f)),
    fileURLToPath(import.meta.url),
  ];
  const newestInput = Math.max(...inputs.map((f) => statSync(f).mtimeMs));

  function upToDate(output) {
    return !force && existsSync(output) && statSync(output).mtimeMs >= newestInput;
  }

  const problems = [];
  const cc = process.env.CC || 'cc';
  if (process.platform === 'win32') {
    problems.push('building on Windows is not scripted; see lua/README.md for a recipe');
  } else if (!compilerWorks(cc)) {
    problems.push(`no C compiler ('${cc}'); install gcc (or set CC)`);
  } else {
    for (const abi of ABIS) {
      const suffix = abi.version.replace('.', '');
      const outDir = path.join(outRoot, abi.version);
      const output = path.join(outDir, `luapanda_native${suffix}.so`);
      const include = findHeaders(abi);
      if (!include) {
        problems.push(
          `no Lua ${abi.version} headers (${abi.local ? '`npm run setup` builds them' : `Debian: apt-get install ${abi.apt}`}); ` +
            `Lua ${abi.version} programs use the pure-Lua hook`,
        );
        continue;
      }
      if (upToDate(output)) continue;
      mkdirSync(outDir, { recursive: true });
      const args = [
        '-O2',
        '-std=c99',
        '-D_POSIX_C_SOURCE=200809L',
        '-fPIC',
        '-fvisibility=hidden',
        '-Wall',
        '-Wextra',
        `-I${include}`,
        ...LINK_FLAGS,
        '-o',
        output,
        ...sources,
        '-pthread',
        // dladdr/dlopen (nobpcache.c pins the library): in libc from glibc 2.34, libdl before.
        ...(process.platform === 'linux' ? ['-ldl'] : []),
      ];
      const result = spawnSync(cc, args, { encoding: 'utf8' });
      if (result.status !== 0) {
        problems.push(`compiling for Lua ${abi.version} failed:\n${result.stderr}`);
        continue;
      }
      if (result.stderr.trim()) process.stderr.write(result.stderr);
      log(`built ${path.relative(root, output)}`);
    }
  }

  for (const problem of problems) log(problem);
  if (problems.length > 0 && required) {
    log('CI requires every native build (CI=true or LUAPANDA_REQUIRE_NATIVE=1): failing.');
    process.exit(1);
  }
  return problems;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) buildNative();
