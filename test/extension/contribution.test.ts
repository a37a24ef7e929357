/**
 * package.json's contributions against their sources: the `luapanda` debugger's attribute schemas
 * are generated from the adapter's zod schemas (`UPDATE_GOLDEN=1` rewrites package.json), the
 * settings' defaults are the ones the code falls back to, and every command has a handler name.
 */
import { resetVscode } from './vscodeStub';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { attachArgumentsSchema, launchArgumentsSchema } from '../../src/adapter/launchConfig';
import {
  ATTRIBUTE_DESCRIPTIONS,
  CONFIGURATION_SNIPPETS,
  debuggerContribution,
} from '../../src/extension/contribution';
import { COMMANDS } from '../../src/extension/panel';
import { readSettings } from '../../src/extension/settings';
import { PROVIDER_ID } from '../../src/extension/mcpRegistration';

const PACKAGE_JSON = path.join(__dirname, '..', '..', '..', 'package.json');

interface Manifest {
  activationEvents: string[];
  contributes: {
    debuggers: Record<string, unknown>[];
    breakpoints: { language: string }[];
    commands: { command: string }[];
    configuration: { properties: Record<string, { default: unknown }> };
    mcpServerDefinitionProviders: { id: string }[];
  };
}

function manifest(): Manifest {
  return JSON.parse(fs.readFileSync(PACKAGE_JSON, 'utf8')) as Manifest;
}

describe('extension: package.json contributions', () => {
  it('the luapanda debugger contribution is generated from the adapter schemas', () => {
    const generated = debuggerContribution();
    if (process.env.UPDATE_GOLDEN) {
      const pkg = JSON.parse(fs.readFileSync(PACKAGE_JSON, 'utf8'));
      pkg.contributes.debuggers = [generated];
      fs.writeFileSync(PACKAGE_JSON, `${JSON.stringify(pkg, null, 2)}\n`);
    }
    assert.deepEqual(
      manifest().contributes.debuggers,
      [generated],
      'regenerate with UPDATE_GOLDEN=1',
    );
  });

  it('every launch and attach attribute has a description, and only those', () => {
    const names = new Set([
      ...Object.keys(launchArgumentsSchema.shape),
      ...Object.keys(attachArgumentsSchema.shape),
    ]);
    for (const own of ['name', 'type', 'request']) names.delete(own);
    assert.deepEqual([...names].sort(), Object.keys(ATTRIBUTE_DESCRIPTIONS).sort());
    const launch = (
      debuggerContribution().configurationAttributes as Record<string, { required?: string[] }>
    ).launch;
    assert.deepEqual(launch.required, ['program']);
  });

  it('snippets: launch a Lua file, attach on 8818, attach by connecting to a device', () => {
    const bodies = CONFIGURATION_SNIPPETS.map((s) => s.body as Record<string, unknown>);
    assert.equal(bodies[0].request, 'launch');
    assert.equal(bodies[1].connectionPort, 8818);
    assert.equal(bodies[2].VSCodeAsClient, true);
    for (const body of bodies) {
      assert.equal(body.type, 'luapanda');
      assert.ok(launchArgumentsSchema.safeParse({ ...body, program: 'x.lua' }).success);
    }
  });

  it('breakpoints for lua, the MCP provider, and a command entry for every command', () => {
    const { contributes, activationEvents } = manifest();
    assert.deepEqual(contributes.breakpoints, [{ language: 'lua' }]);
    assert.deepEqual(
      contributes.mcpServerDefinitionProviders.map((p) => p.id),
      [PROVIDER_ID],
    );
    assert.deepEqual(
      contributes.commands.map((c) => c.command).sort(),
      Object.values(COMMANDS).sort(),
    );
    assert.ok(activationEvents.includes('onStartupFinished'), 'the MCP server starts with VS Code');
  });

  it("the settings' declared defaults are the code's defaults", () => {
    resetVscode();
    const declared = manifest().contributes.configuration.properties;
    const read = readSettings();
    assert.equal(declared['luapanda.mcp.port'].default, read.port);
    assert.equal(read.port, 6009);
    assert.equal(declared['luapanda.mcp.autoStart'].default, read.autoStart);
    assert.equal(read.autoStart, true);
    assert.equal(declared['luapanda.mcp.codeExecution'].default, read.codeExecution);
    assert.equal(declared['luapanda.mcp.token'].default, '');
    assert.equal(read.token, undefined);
    assert.equal(
      declared['luapanda.mcp.defaultTimeoutSeconds'].default,
      read.defaultTimeoutSeconds,
    );
    assert.equal(
      declared['luapanda.mcp.allowOutsideWorkspace'].default,
      read.allowOutsideWorkspace,
    );
    assert.equal(declared['luapanda.languageModelTools.enabled'].default, read.languageModelTools);
    assert.equal(read.languageModelTools, true);
    assert.equal(
      declared['luapanda.languageModelTools.confirmChanges'].default,
      read.confirmLanguageModelToolChanges,
    );
  });
});
