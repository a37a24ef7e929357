/**
 * The `luapanda` debugger contribution of package.json, generated from the adapter's own
 * launch.json schemas (src/adapter/launchConfig.ts) plus the descriptions users read in the
 * editor; a test keeps package.json equal to it (`UPDATE_GOLDEN=1` rewrites it). Also the
 * initial configurations and snippets, shared with the configuration provider.
 */
import { z } from 'zod';
import { attachArgumentsSchema, launchArgumentsSchema } from '../../adapter/launchConfig';

export const DEBUG_TYPE = 'luapanda';

/** What each attribute means; every attribute of the schemas must have one (a test checks). */
export const ATTRIBUTE_DESCRIPTIONS: Record<string, string> = {
  program: 'The Lua file to run (launch). The runtime is preloaded; the program needs no change.',
  args: 'Command-line arguments of the program (the Lua `arg` table).',
  env: 'Environment variables of the interpreter; null removes one.',
  luaPath: 'The Lua interpreter to run (default: lua5.4, then lua). Must have luasocket.',
  packagePath: 'Extra package.path entries for the program.',
  noDebug: 'Run without debugging.',
  runtimePath: 'Folder holding the LuaPanda.lua runtime to preload (default: the bundled one).',
  cwd: 'Working folder of the program, and the root under which source files are looked up.',
  stopOnEntry: 'Stop at the first line of the program.',
  luaFileExtension:
    'Extension of the Lua files when the game loads them without one (e.g. "lua", "lua.txt", "bytes").',
  connectionPort: 'TCP port between VS Code and the game (default 8818).',
  connectionHost:
    'Address VS Code listens on for the game: "127.0.0.1" (default: this machine only), ' +
    '"0.0.0.0" (every interface: a game on a phone or another machine) or one address of this ' +
    'machine. Not used with VSCodeAsClient.',
  connectionSecret:
    'Pairing secret for a game on a phone or another machine: the game gets the same one ' +
    '(require("LuaPanda").start(host, port, { secret = "…" }), startServer likewise, or the ' +
    'environment variable LUAPANDA_SECRET), and each side proves it knows it without sending it. ' +
    'Keep it out of the repository: "${env:LUAPANDA_SECRET}" reads it from the environment.',
  connectionInsecure:
    'Listen beyond this machine ("connectionHost" not loopback) without "connectionSecret": any ' +
    'program that reaches the port is taken for the game. Without it, VS Code refuses to listen so.',
  connectionIP: 'With VSCodeAsClient: the address of the device or machine that runs the game.',
  VSCodeAsClient:
    'VS Code connects to the game (which listens) instead of waiting for the game to connect.',
  autoPathMode: 'Find source files by name in the workspace when the game reports relative paths.',
  pathCaseSensitivity: 'Compare file paths case-sensitively.',
  isNeedB64EncodeStr: 'Base64-encode strings on the wire (upstream compatibility).',
  useCHook: 'Use the upstream C hook library when the game has it.',
  logLevel: 'Runtime log level: 0 all, 1 info, 2 errors only.',
  TempFilePath: 'Folder where the runtime writes temporary files (upstream compatibility).',
  autoReconnect: 'Keep listening after the game disconnects, for the next run.',
  dbCheckBreakpoint:
    'Accepted for upstream compatibility; the runtime checks same-name files itself.',
  distinguishSameNameFile:
    'Tell files with the same name in different folders apart by their full path.',
  truncatedOPath: 'Part of the reported path to cut off before mapping it to the workspace.',
  docPathReplace: 'Replace a prefix of reported paths: ["from", "to"].',
  tag: 'Upstream only: accepted and ignored.',
  rootFolder: 'Upstream only: accepted and ignored.',
  updateTips: 'Upstream only: accepted and ignored.',
  DevelopmentMode: 'Runtime development mode (more checks and logs).',
  description: 'Upstream only: accepted and ignored.',
  connectionTimeout: 'Seconds to wait for the program to connect (launch 10, attach 30).',
  requestTimeout: 'Seconds to wait for each reply of the Lua side (default 10).',
  trace:
    'Trace what crosses the debugger (for bug reports), to the "LuaPanda Trace" output channel: ' +
    'true for everything, or a list of tags: "wire.send", "wire.receive" (every frame to and from ' +
    'the game; "wire" for both), "dap", "mcp.call", "session.state", "runtime" (the runtime\'s ' +
    'own lines: hook modes, commands).',
};

/** Attributes VS Code itself defines for every configuration. */
const OWN_ATTRIBUTES = new Set(['name', 'type', 'request']);

type JsonSchema = Record<string, unknown>;

function attributesOf(schema: z.ZodType): { properties: JsonSchema; required?: string[] } {
  const json = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }) as {
    properties: Record<string, JsonSchema>;
    required?: string[];
  };
  const properties: JsonSchema = {};
  for (const [name, property] of Object.entries(json.properties)) {
    if (OWN_ATTRIBUTES.has(name)) continue;
    properties[name] = { ...property, description: ATTRIBUTE_DESCRIPTIONS[name] ?? '' };
  }
  const required = (json.required ?? []).filter((name) => !OWN_ATTRIBUTES.has(name));
  return required.length > 0 ? { required, properties } : { properties };
}

export const INITIAL_CONFIGURATIONS = [
  {
    type: DEBUG_TYPE,
    request: 'launch',
    name: 'Lua: launch the current file',
    program: '${file}',
    cwd: '${workspaceFolder}',
    stopOnEntry: false,
  },
  {
    type: DEBUG_TYPE,
    request: 'attach',
    name: 'Lua: attach to a game (port 8818)',
    cwd: '${workspaceFolder}',
    connectionPort: 8818,
    stopOnEntry: false,
  },
];

export const CONFIGURATION_SNIPPETS = [
  {
    label: 'LuaPanda: Launch a Lua file',
    description: 'Run a Lua program with the debugger',
    body: {
      type: DEBUG_TYPE,
      request: 'launch',
      name: 'Lua: launch ${1:main.lua}',
      program: '^"\\${workspaceFolder}/${1:main.lua}"',
      cwd: '^"\\${workspaceFolder}"',
      stopOnEntry: false,
    },
  },
  {
    label: 'LuaPanda: Attach to a game on 8818',
    description: 'Wait for a game that calls require("LuaPanda").start("127.0.0.1", 8818)',
    body: {
      type: DEBUG_TYPE,
      request: 'attach',
      name: 'Lua: attach to the game',
      cwd: '^"\\${workspaceFolder}"',
      connectionPort: 8818,
      stopOnEntry: false,
    },
  },
  {
    label: 'LuaPanda: Attach to a game on a phone or another machine',
    description:
      'Listen on every interface, with a fresh random pairing secret; the game calls ' +
      'require("LuaPanda").start("<this machine\'s address>", 8818, { secret = "<the same secret>" })',
    body: {
      type: DEBUG_TYPE,
      request: 'attach',
      name: 'Lua: attach to a game on the network',
      cwd: '^"\\${workspaceFolder}"',
      connectionHost: '0.0.0.0',
      connectionPort: 8818,
      // VS Code fills in a new UUID: give the game the same (or set both from LUAPANDA_SECRET).
      connectionSecret: '${UUID}',
      stopOnEntry: false,
    },
  },
  {
    label: 'LuaPanda: Attach by connecting to a device',
    description:
      'VS Code connects to a game that listens (phone, console, another machine): ' +
      'require("LuaPanda").startServer("0.0.0.0", 8818, { secret = "<the same secret>" })',
    body: {
      type: DEBUG_TYPE,
      request: 'attach',
      name: 'Lua: connect to the device',
      cwd: '^"\\${workspaceFolder}"',
      VSCodeAsClient: true,
      connectionIP: '${1:192.168.1.20}',
      connectionPort: 8818,
      connectionSecret: '${UUID}',
      stopOnEntry: false,
    },
  },
];

/** `contributes.debuggers[0]` of package.json. */
export function debuggerContribution(): JsonSchema {
  return {
    type: DEBUG_TYPE,
    label: 'LuaPanda',
    languages: ['lua'],
    configurationAttributes: {
      launch: attributesOf(launchArgumentsSchema),
      attach: attributesOf(attachArgumentsSchema),
    },
    initialConfigurations: INITIAL_CONFIGURATIONS,
    configurationSnippets: CONFIGURATION_SNIPPETS,
  };
}
