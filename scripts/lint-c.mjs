#!/usr/bin/env node
/**
 * Checks the C sources (native/, bench/native/ and test/hosts/) against the repository's
 * .clang-format: `clang-format --dry-run --Werror`, which prints each place that would change
 * and fails. With `--write` it formats them in place instead. Needs clang-format (Debian:
 * `apt-get install clang-format`).
 *
 * Usage: node scripts/lint-c.mjs [--write]
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const FOLDERS = ['native', path.join('bench', 'native'), path.join('test', 'hosts')];
const write = process.argv.includes('--write');

const files = FOLDERS.flatMap((folder) =>
  existsSync(path.join(root, folder))
    ? readdirSync(path.join(root, folder))
        .filter((name) => /\.[ch]$/.test(name))
        .sort()
        .map((name) => path.join(folder, name))
    : [],
);

const args = write ? ['-i', ...files] : ['--dry-run', '--Werror', ...files];
const result = spawnSync('clang-format', ['--style=file', ...args], {
  cwd: root,
  stdio: 'inherit',
});
if (result.error) {
  console.error(
    `lint-c: cannot run clang-format (${result.error.message}); install it: apt-get install clang-format`,
  );
  process.exit(1);
}
if (result.status !== 0) {
  console.error(`lint-c: ${files.length} files checked; \`npm run format:c\` formats them.`);
  process.exit(result.status ?? 1);
}
console.log(`lint-c: ${files.length} C files ${write ? 'formatted' : 'match .clang-format'}`);
