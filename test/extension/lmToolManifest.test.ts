/**
 * package.json's `languageModelTools` against the MCP server's tool listing: they must say the
 * same (names, descriptions, input schemas), or Copilot would call the tools with arguments the
 * server refuses. Fails when a tool or schema changes without `npm run lm-tools` (which regenerates
 * the entries with scripts/gen-lm-tools.ts).
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  LM_TOOLS_WHEN,
  LmToolContribution,
  lmToolContributions,
  withoutRootSchemaKey,
} from '../../src/extension/agentTools/lmToolManifest';
import { TOOLS } from '../../src/mcp/server';
import { listServerTools } from '../../src/cli/serverToolListing';
import { REPO_ROOT } from '../harness/luaProcess';

interface Manifest {
  contributes: {
    languageModelTools?: LmToolContribution[];
    configuration: { properties: Record<string, { default?: unknown }> };
  };
}

describe('extension: language-model tools in package.json', () => {
  let manifest: Manifest;
  let listed: Tool[];

  before(async () => {
    manifest = JSON.parse(
      await fs.readFile(path.join(REPO_ROOT, 'package.json'), 'utf8'),
    ) as Manifest;
    listed = await listServerTools();
  });

  it('declares every MCP tool under its MCP name, in the registry order', () => {
    const declared = (manifest.contributes.languageModelTools ?? []).map((t) => t.name);
    assert.deepEqual(
      declared,
      TOOLS.map((t) => t.name),
    );
    assert.deepEqual(
      declared,
      listed.map((t) => t.name),
    );
  });

  it('gives each the input schema the MCP server lists (less a root $schema)', () => {
    const declared = new Map(
      (manifest.contributes.languageModelTools ?? []).map((t) => [t.name, t]),
    );
    for (const tool of listed) {
      const entry = declared.get(tool.name);
      assert.ok(entry, `${tool.name} is declared`);
      assert.deepEqual(entry.inputSchema, withoutRootSchemaKey(tool.inputSchema), tool.name);
      assert.equal('$schema' in entry.inputSchema, false, `${tool.name}: no root $schema`);
      assert.equal(entry.modelDescription, tool.description, tool.name);
      assert.equal(entry.displayName, tool.title, tool.name);
    }
  });

  it('is exactly what the generator writes (run npm run lm-tools after changing a tool)', () => {
    assert.deepEqual(manifest.contributes.languageModelTools, lmToolContributions(listed));
  });

  it('hides the tools while luapanda.languageModelTools.enabled (default on) is off', () => {
    const setting = manifest.contributes.configuration.properties;
    assert.equal(setting['luapanda.languageModelTools.enabled']?.default, true);
    for (const entry of manifest.contributes.languageModelTools ?? []) {
      assert.equal(entry.when, LM_TOOLS_WHEN, entry.name);
    }
  });

  it('the generator drops a root $schema and keeps nested ones', () => {
    const schema = {
      type: 'object' as const,
      $schema: 'http://json-schema.org/draft-07/schema#',
      properties: { a: { $schema: 'kept', type: 'string' } },
    };
    assert.deepEqual(withoutRootSchemaKey(schema), {
      type: 'object',
      properties: { a: { $schema: 'kept', type: 'string' } },
    });
    assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#', 'input untouched');
  });
});
