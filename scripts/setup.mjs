#!/usr/bin/env node
// `npm run setup`: everything a fresh Debian machine needs before `npm test`.
// 1. The Lua interpreters the tests and the demo run (lua5.1, lua5.2, lua5.3, lua5.4, luajit) with luasocket:
//    installed through apt-get when running as root, otherwise the exact command is printed.
// 2. The npm dependencies (`npm ci` from the lockfile).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const INTERPRETERS = ['lua5.1', 'lua5.2', 'lua5.3', 'lua5.4', 'luajit'];
const APT_PACKAGES = ['lua5.1', 'lua5.2', 'lua5.3', 'lua5.4', 'luajit', 'lua-socket'];

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

const missing = INTERPRETERS.filter((command) => !luaReady(command));
if (missing.length === 0) {
  console.log(`setup: Lua interpreters with luasocket found: ${INTERPRETERS.join(', ')}`);
} else if (
  process.platform === 'linux' &&
  process.getuid?.() === 0 &&
  existsSync('/usr/bin/apt-get')
) {
  console.log(`setup: installing ${APT_PACKAGES.join(' ')} (missing: ${missing.join(', ')})`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  run('apt-get', ['update'], { env });
  run('apt-get', ['install', '-y', ...APT_PACKAGES], { env });
  const still = INTERPRETERS.filter((command) => !luaReady(command));
  if (still.length > 0) {
    console.error(`setup: still missing after apt-get: ${still.join(', ')}`);
    process.exit(1);
  }
} else {
  console.error(`setup: missing Lua interpreters (or their luasocket): ${missing.join(', ')}.`);
  console.error(
    `setup: install them with:\n\n    sudo apt-get install -y ${APT_PACKAGES.join(' ')}\n`,
  );
  console.error('setup: then run `npm run setup` again.');
  process.exit(1);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
run(npm, [
  existsSync(join(root, 'package-lock.json')) ? 'ci' : 'install',
  '--no-audit',
  '--no-fund',
]);
console.log('setup: done. Next: `npm test`.');
