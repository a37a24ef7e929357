/**
 * The `luapanda` launch.json attributes, once, as zod schemas: upstream LuaPanda's attributes
 * under their own names (so a user migrates by changing `type`), plus ours. The schemas give the
 * adapter its argument types and validation, and can be turned into JSON schema for package.json.
 * `toSessionSettings` maps a validated configuration to what the session model needs.
 */
import * as path from 'node:path';
import { z } from 'zod';
import { parseTraceTags } from '../common/trace';
import { DEFAULT_LUA_PORT } from '../protocol';
import { DEFAULT_SETTINGS, SessionSettings } from '../session';

const common = {
  name: z.string().optional(),
  type: z.string().optional(),
  request: z.string().optional(),
  /** Workspace root: the program's working folder and where source files are looked up. */
  cwd: z.string().optional(),
  stopOnEntry: z.boolean().optional(),
  luaFileExtension: z.string().optional(),
  connectionPort: z.number().int().min(0).max(65535).optional(),
  /** Ours: the address the debugger listens on for the program (default 127.0.0.1). */
  connectionHost: z.string().min(1).optional(),
  connectionIP: z.string().optional(),
  VSCodeAsClient: z.boolean().optional(),
  autoPathMode: z.boolean().optional(),
  pathCaseSensitivity: z.boolean().optional(),
  isNeedB64EncodeStr: z.boolean().optional(),
  useCHook: z.boolean().optional(),
  logLevel: z.union([z.literal(0), z.literal(1), z.literal(2)]).optional(),
  TempFilePath: z.string().optional(),
  autoReconnect: z.boolean().optional(),
  /** Accepted for compatibility; our runtime checks same-name files itself. */
  dbCheckBreakpoint: z.union([z.boolean(), z.string()]).optional(),
  distinguishSameNameFile: z.boolean().optional(),
  truncatedOPath: z.string().optional(),
  docPathReplace: z.union([z.tuple([z.string(), z.string()]), z.tuple([])]).optional(),
  /** Upstream only: accepted and ignored. */
  tag: z.string().optional(),
  rootFolder: z.string().optional(),
  updateTips: z.boolean().optional(),
  DevelopmentMode: z.boolean().optional(),
  description: z.string().optional(),
  /** Ours: seconds to wait for the program to connect (launch 10, attach 30). */
  connectionTimeout: z.number().positive().optional(),
  /** Ours: the pairing secret the game and the debugger both prove (the game's `secret` option). */
  connectionSecret: z.string().optional(),
  /** Ours: listen beyond loopback without a pairing secret (any program is taken for the game). */
  connectionInsecure: z.boolean().optional(),
  /** Ours: seconds to wait for each reply of the Lua side (default 10). */
  requestTimeout: z.number().positive().optional(),
  /** Ours: trace what crosses the debugger's boundaries: true (every tag) or a list of tags. */
  trace: z
    .union([z.boolean(), z.string(), z.array(z.string())])
    .optional()
    .superRefine((value, context) => {
      try {
        parseTraceTags(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
};

export const launchArgumentsSchema = z
  .object({
    ...common,
    /** The Lua file to run. */
    program: z.string().min(1, 'Set "program" to the Lua file to run.'),
    args: z.array(z.string()).optional(),
    env: z.record(z.string(), z.union([z.string(), z.null()])).optional(),
    /** The interpreter (default: lua5.4, then lua). */
    luaPath: z.string().optional(),
    /** Extra package.path entries (upstream's independent_file mode). */
    packagePath: z.array(z.string()).optional(),
    /** DAP: run the program without debugging. */
    noDebug: z.boolean().optional(),
    /** Ours: the folder holding the runtime's LuaPanda.lua (default: the bundled one). */
    runtimePath: z.string().optional(),
  })
  .loose();

export const attachArgumentsSchema = z.object({ ...common }).loose();

export type LaunchArguments = z.output<typeof launchArgumentsSchema>;
export type AttachArguments = z.output<typeof attachArgumentsSchema>;

export const DEFAULT_INTERPRETERS = ['lua5.4', 'lua'];
export const DEFAULT_ATTACH_PORT = DEFAULT_LUA_PORT;
export const LAUNCH_CONNECT_TIMEOUT_S = 10;
export const ATTACH_CONNECT_TIMEOUT_S = 30;

/** Parses `args`; a bad attribute becomes one message naming it. */
export function parseArguments<S extends z.ZodType>(schema: S, args: unknown): z.output<S> {
  const parsed = schema.safeParse(args);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `"${issue.path.join('.') || 'configuration'}": ${issue.message}`);
  throw new Error(`Invalid launch configuration: ${issues.join('; ')}.`);
}

export function resolveCwd(args: { cwd?: string }): string {
  return args.cwd !== undefined && args.cwd !== '' ? path.resolve(args.cwd) : process.cwd();
}

export function toSessionSettings(args: LaunchArguments | AttachArguments): SessionSettings {
  const replace = args.docPathReplace;
  return {
    ...DEFAULT_SETTINGS,
    cwd: resolveCwd(args),
    stopOnEntry: args.stopOnEntry ?? DEFAULT_SETTINGS.stopOnEntry,
    luaFileExtension: (args.luaFileExtension ?? '').replace(/^\./, ''),
    pathCaseSensitivity: args.pathCaseSensitivity ?? DEFAULT_SETTINGS.pathCaseSensitivity,
    autoPathMode: args.autoPathMode ?? DEFAULT_SETTINGS.autoPathMode,
    isNeedB64EncodeStr: args.isNeedB64EncodeStr ?? DEFAULT_SETTINGS.isNeedB64EncodeStr,
    useCHook: args.useCHook ?? DEFAULT_SETTINGS.useCHook,
    logLevel: args.logLevel ?? DEFAULT_SETTINGS.logLevel,
    tempFilePath: args.TempFilePath,
    distinguishSameNameFile: args.distinguishSameNameFile ?? false,
    truncatedOPath: args.truncatedOPath ?? '',
    developmentMode: args.DevelopmentMode ?? false,
    docPathReplace: replace && replace.length === 2 ? [replace[0], replace[1]] : undefined,
    autoReconnect: args.autoReconnect === true,
    connectionSecret:
      args.connectionSecret !== undefined && args.connectionSecret !== ''
        ? args.connectionSecret
        : undefined,
    requestTimeoutMs:
      args.requestTimeout !== undefined
        ? args.requestTimeout * 1000
        : DEFAULT_SETTINGS.requestTimeoutMs,
  };
}
