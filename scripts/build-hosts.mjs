#!/usr/bin/env node
/**
 * Builds the test engine hosts (test/hosts/engine.c): one executable per interpreter, linked
 * against that interpreter's static library and luasocket's static core, as a game engine links
 * Lua — out/hosts/<platform>-<arch>/engine-<lua5.1|…|lua5.5|luajit>. Debian packages:
 * liblua5.1-0-dev … liblua5.4-dev and libluajit-5.1-dev (headers and liblua*.a), lua-socket-dev
 * (liblua5.X-socket.a; LuaJIT links the 5.1 one); Lua 5.5's from the project's `.interpreters/`,
 * built by `npm run setup`. It says which hosts it built and which it could
 * not, and never fails the compile: the tests skip a missing host, except in CI where they fail.
 * Up-to-date hosts are not rebuilt.
 *
 * Usage: node scripts/build-hosts.mjs [--force]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { compilerWorks, headerVersion } from './build-native.mjs';
import { LUA55_INCLUDE, LUA55_LIBDIR } from './build-lua55.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const source = path.join(root, 'test', 'hosts', 'engine.c');
export const HOSTS_DIR = path.join(root, 'out', 'hosts', `${process.platform}-${process.arch}`);
const force = process.argv.includes('--force');

/** Where Debian (multiarch) and other Linux distributions keep static libraries. */
const LIB_DIRS = [
  process.env.LUAPANDA_HOST_LIBDIR,
  `/usr/lib/${process.arch === 'x64' ? 'x86_64' : process.arch === 'arm64' ? 'aarch64' : process.arch}-linux-gnu`,
  '/usr/lib',
  '/usr/local/lib',
].filter(Boolean);

/** The Debian packages the hosts need, for `npm run setup` and the messages below. */
export const HOST_APT_PACKAGES = ['libluajit-5.1-dev', 'lua-socket-dev'];

export const HOSTS = [
  {
    name: 'lua5.1',
    num: 501,
    include: 'lua5.1',
    lib: 'liblua5.1.a',
    socket: '5.1',
    apt: 'liblua5.1-0-dev',
  },
  {
    name: 'lua5.2',
    num: 502,
    include: 'lua5.2',
    lib: 'liblua5.2.a',
    socket: '5.2',
    apt: 'liblua5.2-dev',
  },
  {
    name: 'lua5.3',
    num: 503,
    include: 'lua5.3',
    lib: 'liblua5.3.a',
    socket: '5.3',
    apt: 'liblua5.3-dev',
  },
  {
    name: 'lua5.4',
    num: 504,
    include: 'lua5.4',
    lib: 'liblua5.4.a',
    socket: '5.4',
    apt: 'liblua5.4-dev',
  },
  {
    // Debian ships no 5.5: `npm run setup` builds its static libraries (scripts/build-lua55.mjs).
    name: 'lua5.5',
    num: 505,
    include: 'lua5.5',
    lib: 'liblua5.5.a',
    socket: '5.5',
    localInclude: LUA55_INCLUDE,
    localLib: LUA55_LIBDIR,
  },
  {
    name: 'luajit',
    num: 501,
    include: 'luajit-2.1',
    lib: 'libluajit-5.1.a',
    socket: '5.1',
    apt: 'libluajit-5.1-dev',
    luajit: true,
  },
];

function log(message) {
  console.log(`build-hosts: ${message}`);
}

function findLib(file, localDir) {
  for (const dir of localDir ? [localDir, ...LIB_DIRS] : LIB_DIRS) {
    const candidate = path.join(dir, file);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** The folder holding the host's lua.h (of the right version; luajit.h too for LuaJIT). */
function findInclude(host) {
  const dirs = ['/usr/include', '/usr/local/include'].map((base) => path.join(base, host.include));
  for (const dir of host.localInclude ? [host.localInclude, ...dirs] : dirs) {
    const header = path.join(dir, 'lua.h');
    if (!existsSync(header)) continue;
    if (host.luajit && !existsSync(path.join(dir, 'luajit.h'))) continue;
    if (headerVersion(readFileSync(header, 'utf8')) === host.num) return dir;
  }
  return undefined;
}

/** The executable of one host. */
export function hostFile(name) {
  return path.join(HOSTS_DIR, `engine-${name}`);
}

/** What a host lacks to be built (header or static library files), with the packages to add. */
export function missingFor(host) {
  const include = findInclude(host);
  const lib = findLib(host.lib, host.localLib);
  const socket = findLib(`liblua${host.socket}-socket.a`, host.localLib);
  const missing = [
    include ? undefined : `${host.include}/lua.h`,
    lib ? undefined : host.lib,
    socket ? undefined : `liblua${host.socket}-socket.a`,
  ].filter(Boolean);
  const packages = host.localLib
    ? []
    : [...new Set([host.apt, ...(socket ? [] : ['lua-socket-dev'])])];
  return { include, lib, socket, missing, packages };
}

/** Builds every host it can; returns the names built (or up to date) and the problems met. */
export function buildHosts() {
  const built = [];
  const problems = [];
  const cc = process.env.CC || 'cc';
  if (process.platform !== 'linux') {
    problems.push(`engine hosts are built on Linux only (this is ${process.platform})`);
  } else if (!compilerWorks(cc)) {
    problems.push(`no C compiler ('${cc}'); install gcc (or set CC)`);
  } else {
    const newestInput = Math.max(
      statSync(source).mtimeMs,
      statSync(fileURLToPath(import.meta.url)).mtimeMs,
    );
    for (const host of HOSTS) {
      const { include, lib, socket, missing, packages } = missingFor(host);
      if (missing.length > 0) {
        problems.push(
          `engine-${host.name}: no ${missing.join(', ')} (` +
            (host.localLib
              ? '`npm run setup` builds them'
              : `Debian: apt-get install ${packages.join(' ')}`) +
            ')',
        );
        continue;
      }
      const output = hostFile(host.name);
      if (!force && existsSync(output) && statSync(output).mtimeMs >= newestInput) {
        built.push(host.name);
        continue;
      }
      mkdirSync(HOSTS_DIR, { recursive: true });
      const args = [
        '-O2',
        '-std=c99',
        '-D_POSIX_C_SOURCE=200809L',
        '-Wall',
        '-Wextra',
        ...(host.luajit ? ['-DENGINE_LUAJIT'] : []),
        `-I${include}`,
        '-o',
        output,
        source,
        socket,
        // The whole interpreter is linked in and its symbols exported (-E), as engines that load
        // C modules do: the native accelerator finds the Lua API in the executable.
        '-Wl,--whole-archive',
        lib,
        '-Wl,--no-whole-archive',
        '-Wl,-E',
        '-lm',
        '-ldl',
      ];
      const result = spawnSync(cc, args, { encoding: 'utf8' });
      if (result.status !== 0) {
        problems.push(`engine-${host.name}: compiling failed:\n${result.stderr}`);
        continue;
      }
      if (result.stderr.trim()) process.stderr.write(result.stderr);
      built.push(host.name);
    }
  }
  log(
    built.length > 0
      ? `hosts ready in ${path.relative(root, HOSTS_DIR)}: ${built.map((n) => `engine-${n}`).join(', ')}`
      : 'no host built',
  );
  for (const problem of problems) log(`not built: ${problem}`);
  return { built, problems };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) buildHosts();
