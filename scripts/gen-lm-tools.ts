/**
 * Writes package.json's `contributes.languageModelTools` from the MCP server's tool listing, so
 * VS Code's language-model tools always match the MCP tools (names, descriptions, input schemas).
 * Run by `npm run compile` after tsc; rewrites package.json only when the entries changed.
 * `--check` only reports a difference (exit code 1) and writes nothing.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { lmToolContributions } from '../src/extension/lmToolManifest';
import { listServerTools } from '../src/mcp/serverToolListing';

async function main(): Promise<void> {
  // Compiled to out/scripts/, two levels below the repository root.
  const file = path.resolve(__dirname, '..', '..', 'package.json');
  const text = await fs.readFile(file, 'utf8');
  const manifest = JSON.parse(text) as { contributes: Record<string, unknown> };
  manifest.contributes.languageModelTools = lmToolContributions(await listServerTools());
  const next = JSON.stringify(manifest, null, 2) + '\n';
  if (next === text) return;
  if (process.argv.includes('--check')) {
    console.error('package.json languageModelTools are out of date: run npm run compile');
    process.exitCode = 1;
    return;
  }
  await fs.writeFile(file, next);
  console.log('package.json: languageModelTools updated from the MCP tool listing');
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
