#!/usr/bin/env node
// `npm run setup`: everything a fresh Debian machine needs before `npm test`.
// 1. The Lua interpreters the tests and the demo run (lua5.1, lua5.2, lua5.3, lua5.4, luajit) with
//    luasocket, and a C compiler with the Lua 5.1–5.4 headers for the native accelerator
//    (scripts/build-native.mjs), the static Lua and LuaJIT libraries with luasocket's static core
//    for the test engine hosts (scripts/build-hosts.mjs: libluajit-5.1-dev, lua-socket-dev), and
//    LÖVE with a virtual X server (love, xvfb, xauth) for the real-engine tests (test/love), and
//    luacheck for `npm run lint`:
//    installed through apt-get when running as root, otherwise the exact command is printed.
// 2. Lua 5.5 and its luasocket, which Debian does not ship, built from source into the project's
//    `.interpreters/` folder (scripts/build-lua55.mjs); without the sources it says so and goes on.
// 3. The npm dependencies (`npm ci` from the lockfile).
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ABIS, compilerWorks, findHeaders } from './build-native.mjs';
import { HOSTS, HOST_APT_PACKAGES, missingFor } from './build-hosts.mjs';
import { buildLua55 } from './build-lua55.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const INTERPRETERS = ['lua5.1', 'lua5.2', 'lua5.3', 'lua5.4', 'luajit'];
const APT_PACKAGES = [
  'lua5.1',
  'lua5.2',
  'lua5.3',
  'lua5.4',
  'luajit',
  'lua-socket',
  'gcc',
  'liblua5.1-0-dev',
  'liblua5.2-dev',
  'liblua5.3-dev',
  'liblua5.4-dev',
  ...HOST_APT_PACKAGES,
  'love',
  'xvfb',
  'xauth',
  'lua-check',
  'clang-format',
];
/** Commands of the LÖVE tests: `xvfb-run -a love <game>` (xvfb-run needs Xvfb and xauth). */
const LOVE_COMMANDS = ['love', 'xvfb-run', 'Xvfb', 'xauth'];
/** The Lua and C checkers of `npm run lint` (Debian packages lua-check and clang-format). */
const LINT_COMMANDS = ['luacheck', 'clang-format'];

function run(command, args, options = {}) {
  console.log(`$ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: 'inherit', cwd: root, ...options });
  if (result.status !== 0) {
    console.error(
      `setup: '${command} ${args.join(' ')}' failed (exit ${result.status ?? result.signal}).`,
    );
    process.exit(1);
  }
}

function luaReady(command) {
  const probe = spawnSync(command, ['-e', 'require("socket")'], { stdio: 'ignore' });
  return probe.status === 0;
}

/** Whether `command` is an executable file in a folder of the PATH. */
function onPath(command) {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => {
      try {
        accessSync(join(dir, command), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    });
}

/**
 * What is missing: interpreters (with luasocket), the C compiler, Lua headers by version, LÖVE,
 * the virtual X server and luacheck.
 */
function missingParts() {
  const parts = INTERPRETERS.filter((command) => !luaReady(command));
  if (!compilerWorks()) parts.push('a C compiler (gcc)');
  // 5.5's headers come with its build below, not from apt-get.
  for (const abi of ABIS) {
    if (!abi.local && !findHeaders(abi)) parts.push(`Lua ${abi.version} headers`);
  }
  if (process.platform === 'linux') {
    // The 5.5 host's libraries come with its build below, not from apt-get.
    for (const host of HOSTS.filter((h) => !h.localLib)) {
      const { missing } = missingFor(host);
      if (missing.length > 0) parts.push(`engine-${host.name} host parts (${missing.join(', ')})`);
    }
  }
  parts.push(...LOVE_COMMANDS.filter((command) => !onPath(command)));
  parts.push(...LINT_COMMANDS.filter((command) => !onPath(command)));
  return parts;
}

const missing = missingParts();
if (missing.length === 0) {
  console.log(
    `setup: found ${INTERPRETERS.join(', ')} with luasocket, gcc, the Lua 5.1-5.4 headers, ` +
      "the engine hosts' static libraries, LÖVE, Xvfb and luacheck",
  );
} else if (
  process.platform === 'linux' &&
  process.getuid?.() === 0 &&
  existsSync('/usr/bin/apt-get')
) {
  console.log(`setup: installing ${APT_PACKAGES.join(' ')} (missing: ${missing.join(', ')})`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update'], { env });
  run('apt-get', ['install', '-y', ...APT_PACKAGES], { env });
  const still = missingParts();
  if (still.length > 0) {
    console.error(`setup: still missing after apt-get: ${still.join(', ')}`);
    process.exit(1);
  }
} else {
  console.error(`setup: missing: ${missing.join(', ')}.`);
  console.error(
    `setup: install them with:\n\n    sudo apt-get install -y ${APT_PACKAGES.join(' ')}\n`,
  );
  console.error('setup: then run `npm run setup` again.');
  process.exit(1);
}

if (process.platform === 'linux') {
  try {
    console.log(`setup: ${buildLua55()}`);
  } catch (error) {
    console.error(
      `setup: building Lua 5.5 failed: ${error instanceof Error ? error.message : error}`,
    );
    process.exit(1);
  }
} else {
  console.log(`setup: Lua 5.5 is built from source on Linux only (this is ${process.platform})`);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
run(npm, [
  existsSync(join(root, 'package-lock.json')) ? 'ci' : 'install',
  '--no-audit',
  '--no-fund',
]);
console.log('setup: done. Next: `npm test`.');
