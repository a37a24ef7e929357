/**
 * Writes package.json's `contributes.languageModelTools` from the MCP server's tool listing, so
 * VS Code's language-model tools always match the MCP tools (names, descriptions, input schemas).
 * `npm run lm-tools` rewrites package.json when the entries changed. `npm run compile` runs it with
 * `--check`, which writes nothing and fails (exit code 1) on a difference, so a changed tool
 * cannot be built, tested or packaged with stale entries.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { lmToolContributions } from '../src/extension/agentTools/lmToolManifest';
import { listServerTools } from '../src/cli/serverToolListing';

async function main(): Promise<void> {
  // Compiled to out/scripts/, two levels below the repository root.
  const file = path.resolve(__dirname, '..', '..', 'package.json');
  const text = await fs.readFile(file, 'utf8');
  const manifest = JSON.parse(text) as { contributes: Record<string, unknown> };
  manifest.contributes.languageModelTools = lmToolContributions(await listServerTools());
  const next = JSON.stringify(manifest, null, 2) + '\n';
  if (next === text) return;
  if (process.argv.includes('--check')) {
    console.error(
      'package.json languageModelTools are out of date with the MCP tools: run npm run lm-tools',
    );
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
