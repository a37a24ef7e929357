#!/usr/bin/env node
/**
 * Builds Lua 5.5 and its luasocket from source into the project's `.interpreters/` folder
 * (git-ignored, nothing system-wide), since Debian does not ship 5.5: `bin/lua5.5` (an
 * interpreter that loads C modules and finds this folder's luasocket by default), the headers
 * for the native accelerator, and the static `liblua5.5.a` and `liblua5.5-socket.a` for the test
 * engine host. The sources are the two snapshots `lua-5.5.0.tar.gz` and `luasocket-3.1.0.tar.gz`,
 * looked up in LUAPANDA_LUA55_SOURCES if set, else in `../shared/vendor` beside the checkout.
 * Absent sources are reported, not an error: the tests then use the interpreters they find.
 * An up-to-date build is not redone.
 *
 * Usage: node scripts/build-lua55.mjs [--force]
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The folder every locally built interpreter goes to; `bin/` is what the tests put on PATH. */
export const INTERPRETERS_DIR = path.join(root, '.interpreters');
export const LUA55_DIR = path.join(INTERPRETERS_DIR, 'lua5.5');
export const LUA55_BIN = path.join(INTERPRETERS_DIR, 'bin', 'lua5.5');
export const LUA55_INCLUDE = path.join(LUA55_DIR, 'include');
export const LUA55_LIBDIR = path.join(LUA55_DIR, 'lib');

const LUA_TARBALL = 'lua-5.5.0.tar.gz';
const SOCKET_TARBALL = 'luasocket-3.1.0.tar.gz';

/** luasocket's C files for `socket.core` on POSIX (its makefile's SOCKET_OBJS with usocket). */
const SOCKET_CORE = [
  'luasocket.c',
  'timeout.c',
  'buffer.c',
  'io.c',
  'auxiliar.c',
  'compat.c',
  'options.c',
  'inet.c',
  'usocket.c',
  'except.c',
  'select.c',
  'tcp.c',
  'udp.c',
];
const MIME_CORE = ['mime.c', 'compat.c'];
const SOCKET_LUA = ['socket.lua', 'ltn12.lua', 'mime.lua'];
const SOCKET_SUBMODULES = ['http.lua', 'url.lua', 'tp.lua', 'ftp.lua', 'smtp.lua', 'headers.lua'];

function log(message) {
  console.log(`build-lua55: ${message}`);
}

/** The folder holding both tarballs, or undefined (with the folder that was looked in). */
export function lua55Sources() {
  const dir = process.env.LUAPANDA_LUA55_SOURCES
    ? path.resolve(process.env.LUAPANDA_LUA55_SOURCES)
    : path.resolve(root, '..', 'shared', 'vendor');
  const found = [LUA_TARBALL, SOCKET_TARBALL].every((f) => existsSync(path.join(dir, f)));
  return { dir, found };
}

function sh(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`'${command} ${args.join(' ')}' failed:\n${result.stderr || result.stdout}`);
  }
}

/** Whether the built interpreter runs and loads its luasocket. */
export function lua55Ready() {
  if (!existsSync(LUA55_BIN)) return false;
  const probe = spawnSync(LUA55_BIN, ['-e', 'require("socket")'], { stdio: 'ignore' });
  return probe.status === 0;
}

function upToDate(sourcesDir) {
  if (!lua55Ready()) return false;
  const built = statSync(LUA55_BIN).mtimeMs;
  const inputs = [
    path.join(sourcesDir, LUA_TARBALL),
    path.join(sourcesDir, SOCKET_TARBALL),
    fileURLToPath(import.meta.url),
  ];
  return (
    inputs.every((f) => statSync(f).mtimeMs <= built) &&
    existsSync(path.join(LUA55_LIBDIR, 'liblua5.5.a')) &&
    existsSync(path.join(LUA55_LIBDIR, 'liblua5.5-socket.a'))
  );
}

/**
 * Builds everything; returns what happened in one sentence ('built', 'up to date', or why not).
 * Throws when a build step that should work fails.
 */
export function buildLua55({ force = false } = {}) {
  const { dir, found } = lua55Sources();
  if (!found) {
    return `no ${LUA_TARBALL} and ${SOCKET_TARBALL} in ${dir} (set LUAPANDA_LUA55_SOURCES to their folder): Lua 5.5 is not built, the tests use the interpreters they find`;
  }
  if (!force && upToDate(dir))
    return `lua5.5 with luasocket up to date in ${path.relative(root, LUA55_DIR)}`;
  const cc = process.env.CC || 'cc';
  const work = path.join(tmpdir(), `luapanda-lua55-${process.pid}`);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  try {
    sh('tar', ['xzf', path.join(dir, LUA_TARBALL), '-C', work], root);
    sh('tar', ['xzf', path.join(dir, SOCKET_TARBALL), '-C', work], root);
    const luaSrc = path.join(work, 'lua-5.5.0');
    const socketSrc = path.join(work, 'luasocket-3.1.0', 'src');
    const share = path.join(LUA55_DIR, 'share', 'lua', '5.5');
    const cmods = path.join(LUA55_LIBDIR, 'lua', '5.5');
    for (const d of [LUA55_INCLUDE, LUA55_LIBDIR, share, cmods, path.dirname(LUA55_BIN)]) {
      mkdirSync(d, { recursive: true });
    }

    // The interpreter's default paths lead to this folder first, then to the usual places, so
    // `lua5.5` finds its luasocket with no LUA_PATH/LUA_CPATH set (as Debian's interpreters do).
    const defaults = [
      `-DLUA_PATH_DEFAULT="${share}/?.lua;${share}/?/init.lua;/usr/local/share/lua/5.5/?.lua;/usr/local/share/lua/5.5/?/init.lua;./?.lua;./?/init.lua"`,
      `-DLUA_CPATH_DEFAULT="${cmods}/?.so;/usr/local/lib/lua/5.5/?.so;./?.so"`,
    ];
    const luaFiles = readdirSync(luaSrc).filter(
      (f) => f.endsWith('.c') && !['onelua.c', 'ltests.c', 'luac.c', 'lua.c'].includes(f),
    );
    // Position-independent objects: the same ones make the interpreter and the static library
    // the engine host links (whose native accelerator finds the Lua API in the executable).
    const objects = [];
    for (const f of luaFiles) {
      const obj = path.join(work, f.replace(/\.c$/, '.o'));
      sh(cc, ['-O2', '-fPIC', '-DLUA_USE_LINUX', ...defaults, '-c', '-o', obj, f], luaSrc);
      objects.push(obj);
    }
    const libLua = path.join(LUA55_LIBDIR, 'liblua5.5.a');
    rmSync(libLua, { force: true });
    sh('ar', ['rcs', libLua, ...objects], work);
    sh(
      cc,
      [
        '-O2',
        '-DLUA_USE_LINUX',
        '-Wl,-E',
        '-o',
        LUA55_BIN,
        'lua.c',
        // All of the library, so that every C module finds the whole Lua API in the executable.
        '-Wl,--whole-archive',
        libLua,
        '-Wl,--no-whole-archive',
        '-lm',
        '-ldl',
      ],
      luaSrc,
    );
    for (const h of readdirSync(luaSrc).filter((f) => f.endsWith('.h'))) {
      copyFileSync(path.join(luaSrc, h), path.join(LUA55_INCLUDE, h));
    }

    const socketFlags = ['-O2', '-fPIC', `-I${LUA55_INCLUDE}`];
    mkdirSync(path.join(cmods, 'socket'), { recursive: true });
    mkdirSync(path.join(cmods, 'mime'), { recursive: true });
    sh(
      cc,
      [...socketFlags, '-shared', '-o', path.join(cmods, 'socket', 'core.so'), ...SOCKET_CORE],
      socketSrc,
    );
    sh(
      cc,
      [...socketFlags, '-shared', '-o', path.join(cmods, 'mime', 'core.so'), ...MIME_CORE],
      socketSrc,
    );
    // The static socket core for the engine host (which preloads `socket.core` itself).
    const socketObjects = [];
    for (const f of SOCKET_CORE) {
      const obj = path.join(work, `socket-${f.replace(/\.c$/, '.o')}`);
      sh(cc, [...socketFlags, '-c', '-o', obj, f], socketSrc);
      socketObjects.push(obj);
    }
    const libSocket = path.join(LUA55_LIBDIR, 'liblua5.5-socket.a');
    rmSync(libSocket, { force: true });
    sh('ar', ['rcs', libSocket, ...socketObjects], work);
    for (const f of SOCKET_LUA) copyFileSync(path.join(socketSrc, f), path.join(share, f));
    mkdirSync(path.join(share, 'socket'), { recursive: true });
    for (const f of SOCKET_SUBMODULES) {
      copyFileSync(path.join(socketSrc, f), path.join(share, 'socket', f));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  if (!lua55Ready()) throw new Error(`${LUA55_BIN} was built but cannot load its luasocket`);
  return `built lua5.5 with luasocket from ${dir} into ${path.relative(root, LUA55_DIR)}`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  log(buildLua55({ force: process.argv.includes('--force') }));
}
