#!/usr/bin/env node
/**
 * `npm run watch`: the developer loop. Keeps three builds fresh while you edit:
 * - the Lua runtime bundle (dist/lua/LuaPanda.lua), rebuilt when a file under lua/ changes;
 * - the webpack bundles the extension host and the packaged CLIs load (dist/extension.js,
 *   dist/cli/*.js), in webpack's watch mode;
 * - tsc in watch mode (out/: tests, the CLIs run from out/, type errors).
 * tsc starts once webpack's first build is done, so tsc's "Watching for file changes" line (the
 * end pattern of VS Code's $tsc-watch problem matcher, .vscode/tasks.json) means every bundle is
 * ready. The native accelerator is not rebuilt (`npm run build:native`). Ctrl+C stops them all.
 */
import { spawn, spawnSync } from 'node:child_process';
import { watch } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const children = [];

function buildLua() {
  spawnSync(process.execPath, [path.join(root, 'scripts', 'build-lua.mjs')], {
    cwd: root,
    stdio: 'inherit',
  });
}

/** Rebuilds the Lua bundle once a burst of changes under lua/ has settled. */
function watchLua() {
  let timer;
  watch(path.join(root, 'lua'), { recursive: true }, (_event, file) => {
    if (file && !String(file).endsWith('.lua')) return;
    clearTimeout(timer);
    timer = setTimeout(buildLua, 100);
  });
}

function start(script, args, options = {}) {
  const child = spawn(process.execPath, [require.resolve(script), ...args], {
    cwd: root,
    stdio: ['ignore', options.onLine ? 'pipe' : 'inherit', 'inherit'],
  });
  children.push(child);
  child.on('exit', (code, signal) => {
    console.error(`watch: ${path.basename(script)} ended (${signal ?? `exit ${code}`}); stopping`);
    stop(1);
  });
  if (options.onLine) {
    let pending = '';
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      lines.forEach(options.onLine);
    });
  }
  return child;
}

function stop(code) {
  for (const child of children) {
    child.removeAllListeners('exit');
    child.kill();
  }
  process.exit(code);
}

process.on('SIGINT', () => stop(0));
process.on('SIGTERM', () => stop(0));

buildLua();
watchLua();

const bundles = require(path.join(root, 'webpack.config.js')).length;
let compiled = 0;
let tscStarted = false;
start('webpack-cli/bin/cli.js', ['--watch', '--mode', 'development', '--stats', 'minimal'], {
  onLine: (line) => {
    if (tscStarted || !/compiled/.test(line)) return;
    compiled += 1;
    if (compiled < bundles) return;
    tscStarted = true;
    start('typescript/bin/tsc', ['-w', '-p', '.', '--preserveWatchOutput']);
  },
});
