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
  INITIAL_CONFIGURATIONS,
  debuggerContribution,
} from '../../src/extension/debug/contribution';
import { LuaConfigurationProvider } from '../../src/extension/debug/debugAdapter';
import { COMMANDS, CONTEXT_KEYS, contextValues } from '../../src/extension/mcpServer/panel';
import type { ServerState } from '../../src/extension/mcpServer/serverManager';
import { readSettings } from '../../src/extension/settings';
import { PROVIDER_ID } from '../../src/extension/mcpServer/mcpRegistration';

const PACKAGE_JSON = path.join(__dirname, '..', '..', '..', 'package.json');

interface Manifest {
  activationEvents: string[];
  contributes: {
    debuggers: Record<string, unknown>[];
    breakpoints: { language: string }[];
    commands: { command: string; title?: string; category?: string }[];
    menus: Record<string, { command: string; when?: string }[] | undefined> & {
      commandPalette: { command: string; when?: string }[];
    };
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

  it('snippets: launch a Lua file, attach on 8818 (this machine, the network), connect to a device', () => {
    const bodies = CONFIGURATION_SNIPPETS.map((s) => s.body as Record<string, unknown>);
    assert.equal(bodies[0].request, 'launch');
    assert.equal(bodies[1].connectionPort, 8818);
    assert.equal(bodies[1].connectionHost, undefined, 'loopback by default');
    assert.equal(bodies[2].connectionHost, '0.0.0.0');
    assert.equal(bodies[3].VSCodeAsClient, true);
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

  it('a new launch.json holds each starter configuration once', () => {
    // What VS Code writes for Run → Add Configuration… in a folder without launch.json
    // (Debugger.getInitialConfigurationContent): package.json's initialConfigurations, then
    // whatever the type's configuration providers' provideDebugConfigurations return.
    const declared = (manifest().contributes.debuggers[0].initialConfigurations ?? []) as {
      name: string;
    }[];
    const provider = new LuaConfigurationProvider('/runtime') as {
      provideDebugConfigurations?: (folder: undefined) => { name: string }[];
    };
    const written = [...declared, ...(provider.provideDebugConfigurations?.(undefined) ?? [])];
    const names = written.map((c) => c.name);
    assert.deepEqual(
      names,
      INITIAL_CONFIGURATIONS.map((c) => c.name),
    );
    assert.equal(new Set(names).size, names.length, `a starter twice: ${names.join(', ')}`);
  });

  /** VS Code's own context keys our `when` clauses use, with their values outside a debug session. */
  const VSCODE_KEYS = { inDebugMode: false, debugType: undefined, resourceExtname: undefined };

  /** Evaluates the `when` clauses we write: `key`, `!key` and `key == value`, joined by `&&`. */
  function holds(when: string | undefined, values: Record<string, unknown>): boolean {
    const known = new Set<string>([...Object.values(CONTEXT_KEYS), ...Object.keys(VSCODE_KEYS)]);
    return (when ?? 'true').split('&&').every((term) => {
      const match = /^\s*(!?)([\w.]+)\s*(?:==\s*'?([^']*?)'?)?\s*$/.exec(term);
      assert.ok(match, `unsupported when clause ${when}`);
      if (match[2] === 'true') return true;
      assert.ok(
        known.has(match[2]),
        `${match[2]} is not a context key the extension or VS Code sets`,
      );
      if (match[3] !== undefined) return values[match[2]] === match[3];
      return Boolean(values[match[2]]) !== (match[1] === '!');
    });
  }

  it('the Command Palette offers Start, Stop, Restart and Interrupt only when they apply', () => {
    const { menus } = manifest().contributes;
    const offered = (state: ServerState, waiting = 0, vscodeKeys = {}): string[] =>
      Object.values(COMMANDS).filter((command) =>
        holds(menus.commandPalette.find((entry) => entry.command === command)?.when, {
          ...VSCODE_KEYS,
          ...vscodeKeys,
          ...contextValues(state, waiting),
        }),
      );
    const running: ServerState = {
      kind: 'running',
      port: 6009,
      url: 'http://127.0.0.1:6009/mcp',
      instanceId: 'i',
      sessions: 0,
    };
    const stopped: ServerState = { kind: 'stopped' };
    assert.ok(offered(running).includes(COMMANDS.stop));
    assert.ok(offered(running).includes(COMMANDS.restart));
    assert.ok(!offered(running).includes(COMMANDS.start), 'no Start while it runs');
    assert.ok(offered(stopped).includes(COMMANDS.start));
    assert.ok(!offered(stopped).includes(COMMANDS.stop), 'no Stop while stopped');
    assert.ok(!offered(stopped).includes(COMMANDS.restart));
    assert.ok(!offered(stopped).includes(COMMANDS.interrupt), 'no Interrupt with no agent waiting');
    assert.ok(offered(stopped, 1).includes(COMMANDS.interrupt));
    for (const command of [COMMANDS.doctor, COMMANDS.changePort, COMMANDS.copyConfig]) {
      assert.ok(offered(stopped).includes(command) && offered(running).includes(command), command);
    }
    assert.ok(
      !offered(stopped).includes(COMMANDS.hotReloadFile),
      'no hot reload without a session',
    );
    const debugging = (debugType: string) => ({ inDebugMode: true, debugType });
    assert.ok(offered(stopped, 0, debugging('luapanda')).includes(COMMANDS.hotReloadFile));
    assert.ok(!offered(stopped, 0, debugging('node')).includes(COMMANDS.hotReloadFile));
  });

  it('"Hot Reload This File" is in the editor title and context menus of Lua files while a LuaPanda session runs', () => {
    const { menus, commands } = manifest().contributes;
    const command = commands.find((c) => c.command === COMMANDS.hotReloadFile);
    assert.deepEqual(
      [command?.category, command?.title],
      ['LuaPanda', 'Hot Reload This File'],
      'the palette shows "LuaPanda: Hot Reload This File"',
    );
    for (const menu of ['editor/title', 'editor/context'] as const) {
      const entry = menus[menu]?.find((e) => e.command === COMMANDS.hotReloadFile);
      assert.ok(entry, `${menu} has the command`);
      const shown = (resourceExtname: string, debugType?: string) =>
        holds(entry.when, {
          ...VSCODE_KEYS,
          resourceExtname,
          inDebugMode: debugType !== undefined,
          debugType,
        });
      assert.ok(shown('.lua', 'luapanda'), menu);
      assert.ok(!shown('.lua'), `${menu}: not without a session`);
      assert.ok(!shown('.lua', 'node'), `${menu}: not in another debugger's session`);
      assert.ok(!shown('.py', 'luapanda'), `${menu}: not for other files`);
    }
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
    assert.equal(declared['luapanda.hotReloadOnSave'].default, read.hotReloadOnSave);
    assert.equal(read.hotReloadOnSave, false, 'reload on save is opt-in');
  });
});
