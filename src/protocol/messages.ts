/**
 * Every command of the LuaPanda protocol, in both directions, as zod schemas: the one source of
 * the messages' TypeScript types and of their validation at the boundary. Field names are
 * upstream's (`luapanda-protocol.md` sections 4–9). Our extensions (Docs/Protocol_Extensions.md)
 * are optional fields and commands that an upstream peer ignores.
 */
import { z } from 'zod';
import type { StopCommand } from './contract';
import { anyInfo, wireArray, wireBoolean, wireNumber, wireObject, wireText } from './wireTypes';

// ---------------------------------------------------------------------------------------------
// Shared shapes

/** One variable, watch or REPL result (protocol doc 9.1). */
export const variableSchema = z.object({
  name: wireText,
  type: z.string(),
  value: wireText,
  variablesReference: wireNumber,
  /** `debug.getlocal` slot; locals only. */
  index: wireNumber.optional(),
  /** Watch/REPL replies: `"true"` or the boolean `false` upstream. */
  isSuccess: wireBoolean.optional(),
  /** Extension: how many children an expandable value has (for paging). */
  childCount: wireNumber.optional(),
  /** Extension: an expression that evaluates to this value in the stopped frame. */
  evaluateName: z.string().optional(),
});
export type LuaVariable = z.output<typeof variableSchema>;

/** One stack frame of a stop notification (protocol doc 8.2). */
export const stackFrameSchema = z.object({
  file: wireText,
  oPath: wireText.optional(),
  line: wireNumber,
  /** The frame id the IDE passes back as `stackId`. */
  index: wireNumber,
  /** Upstream sends the constant "文件名"; our runtime sends the function name. */
  name: wireText.optional(),
  /** Extension: the coroutine the frame runs in (`"main"` or a thread's tostring). */
  coroutine: z.string().optional(),
  /** Extension: the line where the frame's function is defined (absent for the main chunk). */
  defined: wireNumber.optional(),
  /** Extension: `module.field` of a loaded module that holds the frame's function. */
  module: z.string().optional(),
});
export type LuaStackFrame = z.output<typeof stackFrameSchema>;

// ---------------------------------------------------------------------------------------------
// IDE → Lua

/**
 * `initSuccess` settings. Upstream Lua compares against the *strings* "true"/"false", so the IDE
 * sends every value as a string (protocol doc 4.2).
 */
export const initSuccessRequestSchema = z.object({
  stopOnEntry: z.enum(['true', 'false']),
  luaFileExtension: z.string(),
  cwd: z.string(),
  isNeedB64EncodeStr: z.enum(['true', 'false']),
  TempFilePath: z.string(),
  logLevel: z.string().regex(/^[0-2]$/),
  pathCaseSensitivity: z.enum(['true', 'false']),
  OSType: z.string(),
  clibPath: z.string(),
  useCHook: z.enum(['true', 'false']),
  adapterVersion: z.string(),
  autoPathMode: z.enum(['true', 'false']),
  distinguishSameNameFile: z.enum(['true', 'false']),
  truncatedOPath: z.string(),
  DevelopmentMode: z.enum(['true', 'false']),
  /**
   * The same two settings as upstream's 3.1.80 file spells them: it reads only these, and
   * `string.lower(nil)` on a missing `TruncatedOPath` kills the game during the handshake.
   */
  TruncatedOPath: z.string().optional(),
  DistinguishSameNameFile: z.enum(['true', 'false']).optional(),
  /** Extension: cap unpaged child lists at this many entries (absent: full lists, as upstream). */
  pagingLimit: z.string().regex(/^\d+$/).optional(),
  /** Extension: hold the program after the handshake until `configurationDone` arrives. */
  waitConfigurationDone: z.enum(['true', 'false']).optional(),
  /** Extension (feature `trace`): the runtime sends its own trace lines as `trace` frames. */
  trace: z.enum(['true', 'false']).optional(),
  /** Extension (pairing): the IDE's nonce for this connection, when it holds a pairing secret. */
  pairNonce: z.string().optional(),
  /** Extension (pairing): the IDE's proof of the secret, once the runtime answered with its nonce. */
  pairProof: z.string().optional(),
});
export type InitSuccessRequest = z.output<typeof initSuccessRequestSchema>;

/** Breakpoint kinds on the wire: 0 condition, 1 logpoint, 2 plain line (protocol doc 7.1). */
export const BreakpointType = { condition: 0, logpoint: 1, line: 2 } as const;

export const wireBreakpointSchema = z.object({
  verified: wireBoolean.optional(),
  type: wireNumber.pipe(z.union([z.literal(0), z.literal(1), z.literal(2)])),
  line: wireNumber,
  condition: z.string().optional(),
  logMessage: z.string().optional(),
  /** Extension: `> 5`, `>= 5`, `== 5`, `< 5`, `<= 5`, `% 2` or a bare number (`>=`). */
  hitCondition: z.string().optional(),
  /** Extension (breakpointsBound): the line the user asked for, when `line` is where it moved. */
  requested: wireNumber.optional(),
  /** Extension (breakpointsBound): the line range of the function the breakpoint binds in
   * (`fnFirst` 0: the main chunk): it binds on that function's first line with code at or
   * after `requested` when the function is first seen. */
  fnFirst: wireNumber.optional(),
  fnLast: wireNumber.optional(),
});
export type WireBreakpoint = z.input<typeof wireBreakpointSchema>;

export const setBreakPointRequestSchema = z.object({
  path: z.string(),
  bks: wireArray(wireBreakpointSchema),
  /** Extension: send `breakpointsBound` notifications (our runtime only; upstream ignores it). */
  notifyBound: z.boolean().optional(),
});

export const continueRequestSchema = wireObject({
  isFakeHit: z.string().optional(),
  fakeBKPath: z.string().optional(),
  fakeBKLine: wireText.optional(),
});

export const getVariableRequestSchema = z.object({
  varRef: wireText,
  stackId: wireText,
  /** Extension: paging of children. */
  start: wireNumber.optional(),
  count: wireNumber.optional(),
});

export const setVariableRequestSchema = z.object({
  varRef: wireText,
  stackId: wireText,
  varName: z.string(),
  newValue: z.string(),
});

export const getWatchedVariableRequestSchema = z.object({
  varName: z.string(),
  stackId: wireText,
});

export const runREPLExpressionRequestSchema = z.object({
  Expression: z.string(),
  stackId: wireText,
});

const exceptionFilterName = z.enum(['uncaught', 'caught', 'assert']);

/**
 * Extension: which errors stop the program. `conditions` (feature `exceptionConditions`): for a
 * filter that is on, texts one of which the error message must contain for it to stop.
 */
export const setExceptionBreakpointsRequestSchema = z.object({
  filters: wireArray(exceptionFilterName),
  conditions: z.partialRecord(exceptionFilterName, z.array(z.string().min(1))).optional(),
});

/** Extension: load a changed file into the running program (Docs/Protocol_Extensions.md). */
export const hotReloadRequestSchema = z.object({
  /** The file as breakpoints name it (the wire path). */
  path: z.string().min(1),
  /** The file's new text. */
  source: z.string(),
});

/** Extension: the coroutines the runtime knows, at most `max` (a number as a string). */
export const listCoroutinesRequestSchema = z.object({ max: z.string() });

const emptyRequestSchema = wireObject({});

// Function breakpoints (feature `functionBreakpoints`): Docs/Protocol_Extensions.md.

/**
 * Extension: where a function the name denotes is defined, as the IDE read it in the sources
 * (local classes and functions are reachable under no name at run time): the file as
 * `setBreakPoint`'s `path`, `linedefined`, `lastlinedefined`, and the first line with code.
 */
export const functionDefinitionSiteSchema = z.object({
  path: z.string(),
  first: wireNumber,
  last: wireNumber,
  line: wireNumber,
});
/** Extension: one function breakpoint, named as Lua source writes the function. */
export const functionBreakpointSpecSchema = z.object({
  name: z.string().min(1),
  condition: z.string().optional(),
  hitCondition: z.string().optional(),
  logMessage: z.string().optional(),
  sites: wireArray(functionDefinitionSiteSchema).optional(),
});
/** Extension: replaces every function breakpoint. */
export const setFunctionBreakPointRequestSchema = z.object({
  names: wireArray(functionBreakpointSpecSchema),
});
/** Where a function breakpoint bound (`file`/`oPath` as stack frames name a chunk), or why not. */
export const functionBreakpointResultSchema = z.object({
  name: z.string(),
  verified: wireBoolean,
  file: z.string().optional(),
  oPath: z.string().optional(),
  line: wireNumber.optional(),
  message: z.string().optional(),
});
export type FunctionBreakpointResult = z.output<typeof functionBreakpointResultSchema>;
/** The reply, and the notification `functionBreakpointsBound` (names that bound later). */
export const functionBreakpointResultsSchema = wireObject({
  results: wireArray(functionBreakpointResultSchema),
});

// Collecting breakpoints (feature `collect`): Docs/Protocol_Extensions.md.

/** Extension: one collecting breakpoint: evaluate `exprs` at `path`:`line` without stopping. */
export const collectorSpecSchema = z.object({
  id: z.string().min(1),
  /** The file as `setBreakPoint`'s `path` names it. */
  path: z.string().min(1),
  line: wireNumber,
  exprs: wireArray(z.string().min(1)),
  condition: z.string().optional(),
  /** Hits to send at most (the runtime caps it at 1000). */
  limit: wireNumber.optional(),
});
/** Extension: replaces every collecting breakpoint. */
export const setCollectRequestSchema = z.object({
  collectors: wireArray(collectorSpecSchema),
});
/** The reply: per collector in order, whether it was set, or why not. */
export const setCollectReplySchema = wireObject({
  results: wireArray(
    z.object({ id: z.string(), verified: wireBoolean, message: z.string().optional() }),
  ),
});
/** One value a collector read: its preview and type, or why the expression failed. */
export const collectedValueSchema = z.object({
  value: z.string().optional(),
  type: z.string().optional(),
  error: z.string().optional(),
});
/** A frame of a collector's hit, named as stack frames name it. */
export const collectedFrameSchema = z.object({
  name: z.string(),
  file: z.string(),
  oPath: z.string().optional(),
  line: wireNumber,
});
/**
 * Extension (notification): one hit of a collector, or its condition's error (then no `hit`: the
 * condition counts as false from then on).
 */
export const collectHitSchema = wireObject({
  id: z.string(),
  hit: wireNumber.optional(),
  values: wireArray(collectedValueSchema).optional(),
  frames: wireArray(collectedFrameSchema).optional(),
  conditionError: z.string().optional(),
});
export type CollectHit = z.output<typeof collectHitSchema>;

/** Every command the IDE sends, with the schema of its `info`. */
export const ideToLuaSchemas = {
  initSuccess: initSuccessRequestSchema,
  setBreakPoint: setBreakPointRequestSchema,
  continue: continueRequestSchema,
  stopOnStep: emptyRequestSchema,
  stopOnStepIn: emptyRequestSchema,
  stopOnStepOut: emptyRequestSchema,
  getVariable: getVariableRequestSchema,
  setVariable: setVariableRequestSchema,
  getWatchedVariable: getWatchedVariableRequestSchema,
  runREPLExpression: runREPLExpressionRequestSchema,
  stopRun: emptyRequestSchema,
  LuaGarbageCollect: emptyRequestSchema,
  pause: emptyRequestSchema,
  setExceptionBreakpoints: setExceptionBreakpointsRequestSchema,
  configurationDone: emptyRequestSchema,
  hotReload: hotReloadRequestSchema,
  setFunctionBreakPoint: setFunctionBreakPointRequestSchema,
  listCoroutines: listCoroutinesRequestSchema,
  setCollect: setCollectRequestSchema,
} as const;
export type IdeCommand = keyof typeof ideToLuaSchemas;
export type IdeRequestInfo<C extends IdeCommand> = z.input<(typeof ideToLuaSchemas)[C]>;

// ---------------------------------------------------------------------------------------------
// Lua → IDE: replies

export const initSuccessReplySchema = wireObject({
  debuggerVer: wireText.optional(),
  UseHookLib: wireBoolean.optional(),
  UseLoadstring: wireBoolean.optional(),
  isNeedB64EncodeStr: wireBoolean.optional(),
  /** Extension: which runtime answered (`"luapanda-mcp"`); absent for upstream. */
  runtime: z.string().optional(),
  runtimeVersion: z.string().optional(),
  /** Extension: `_VERSION`, plus `jit.version` under LuaJIT. */
  luaVersion: z.string().optional(),
  /** Extension: what the runtime supports beyond upstream (`pause`, `exceptions`, …). */
  features: wireArray(z.string()).optional(),
  /** Extension: why the runtime refused the handshake (a wrong-typed field); it drops the link. */
  error: z.string().optional(),
  /** Extension: the name the game gave itself (`start(host, port, {name = …})`). */
  gameName: z.string().optional(),
  /** Extension: the program's file name (`arg[0]`) and process id, where Lua can know them. */
  program: z.string().optional(),
  processId: wireNumber.optional(),
  /** Extension (pairing): `"challenge"` answers the IDE's nonce with the runtime's (nothing applied). */
  pairing: z.string().optional(),
  /** Extension (pairing): the runtime's nonce for this connection. */
  pairNonce: z.string().optional(),
  /** Extension (pairing): the runtime's proof of the secret, in the reply that completes the handshake. */
  pairProof: z.string().optional(),
});
export type InitSuccessReply = z.output<typeof initSuccessReplySchema>;

/** Extension: per-breakpoint verdicts, so a bad condition is reported when set. */
export const breakpointResultSchema = z.object({
  line: wireNumber,
  verified: wireBoolean,
  message: z.string().optional(),
});
export const setBreakPointReplySchema = z.union([
  // Upstream's `[]`: no verdicts, no word on loading (typed so that both shapes read alike).
  z
    .array(z.never())
    .transform((): { results: undefined; loaded?: boolean } => ({ results: undefined })),
  wireObject({
    results: wireArray(breakpointResultSchema).optional(),
    /** Extension: whether code of the file has run yet (its chunk is loaded). */
    loaded: wireBoolean.optional(),
  }),
]);

export const variableListSchema = wireArray(variableSchema);

export const setVariableReplySchema = wireObject({
  success: wireBoolean,
  name: wireText.optional(),
  type: z.string().optional(),
  value: wireText.optional(),
  variablesReference: wireNumber.optional(),
  tip: z.string().optional(),
});

/** One function named in a hot-reload report, with the line it is defined at. */
export const reloadEntrySchema = z.object({
  name: z.string(),
  line: wireNumber,
  /** Why it was not found or not replaced. */
  reason: z.string().optional(),
});

/** Extension: what a hot reload did; on `error` nothing changed. */
export const hotReloadReplySchema = wireObject({
  status: z.enum(['success', 'error']),
  error: z.string().optional(),
  phase: z.enum(['find', 'compile', 'run', 'apply']).optional(),
  /** The chunk name the file was loaded as. */
  chunk: z.string().optional(),
  /** Its `package.loaded` name, when it was required. */
  module: z.string().optional(),
  replaced: wireArray(reloadEntrySchema),
  added: wireArray(reloadEntrySchema),
  notFound: wireArray(reloadEntrySchema),
  notReplaced: wireArray(reloadEntrySchema),
  /** Old versions running in some frame: they finish in the old code. */
  active: wireArray(reloadEntrySchema),
  references: wireNumber,
  searched: wireNumber,
  /** Set when the bounded search stopped early. */
  incomplete: z.string().optional(),
  timeMs: wireNumber,
});
export type HotReloadReply = z.output<typeof hotReloadReplySchema>;

/** Extension: one coroutine the runtime knows; where it stands when suspended or resuming. */
export const coroutineEntrySchema = z.object({
  /** Its tostring, as the `coroutine` of stack frames. */
  id: z.string(),
  status: z.enum(['running', 'suspended', 'normal', 'dead']),
  /** Made by coroutine.wrap. */
  wrap: wireBoolean.optional(),
  file: wireText.optional(),
  oPath: wireText.optional(),
  line: wireNumber.optional(),
  name: wireText.optional(),
});

export const listCoroutinesReplySchema = wireObject({
  coroutines: wireArray(coroutineEntrySchema),
  /** How many the runtime knows (the list stops at `max`). */
  total: wireNumber,
});
export type ListCoroutinesReply = z.output<typeof listCoroutinesReplySchema>;

/** The reply schema of every IDE command that has one. */
export const replySchemas = {
  initSuccess: initSuccessReplySchema,
  setBreakPoint: setBreakPointReplySchema,
  continue: anyInfo,
  stopOnStep: anyInfo,
  stopOnStepIn: anyInfo,
  stopOnStepOut: anyInfo,
  getVariable: variableListSchema,
  setVariable: setVariableReplySchema,
  getWatchedVariable: variableListSchema,
  runREPLExpression: variableListSchema,
  stopRun: anyInfo,
  pause: anyInfo,
  setExceptionBreakpoints: anyInfo,
  configurationDone: anyInfo,
  hotReload: hotReloadReplySchema,
  setFunctionBreakPoint: functionBreakpointResultsSchema,
  listCoroutines: listCoroutinesReplySchema,
  setCollect: setCollectReplySchema,
} as const;
export type RequestCommand = keyof typeof replySchemas;
export type ReplyInfo<C extends RequestCommand> = z.output<(typeof replySchemas)[C]>;

// ---------------------------------------------------------------------------------------------
// Lua → IDE: notifications (callbackId absent, 0, "0" or "")

/** The `info` of a stop notification (its commands: the contract's STOP_COMMANDS). */
export const stopInfoSchema = z.union([
  z.array(z.unknown()).transform(() => ({})),
  z.object({
    /** Extension (`stopOnException`): the error message. */
    exceptionText: z.string().optional(),
    /** Extension (`stopOnException`): true when nothing would have caught the error. */
    uncaught: wireBoolean.optional(),
    /** Extension: the lines of the breakpoints that caused a `stopOnBreakpoint`. */
    hitLines: wireArray(wireNumber).optional(),
    /** Extension: the names of the function breakpoints that caused a `stopOnBreakpoint`. */
    hitFunctions: wireArray(z.string()).optional(),
    /** Extension (`stopOnException`, caught errors): the program's call of pcall/xpcall. */
    caughtAt: z.object({ file: wireText, oPath: wireText.optional(), line: wireNumber }).optional(),
  }),
]);

export const logInfoSchema = wireObject({ logInfo: wireText });

/**
 * Extension: a file that holds breakpoints is loaded (its code ran for the first time), and
 * where breakpoints that name their function bound once it was seen (`bound` 0: nowhere).
 */
export const breakpointsBoundSchema = wireObject({
  path: z.string(),
  lines: wireArray(wireObject({ line: wireNumber, bound: wireNumber })),
});

export const luaNotificationSchemas = {
  refreshLuaMemory: wireObject({ memInfo: wireNumber }),
  output: logInfoSchema,
  tip: logInfoSchema,
  tipError: logInfoSchema,
  debug_console: logInfoSchema,
  /** Extension (feature `trace`, asked for in `initSuccess`): one trace line of the runtime. */
  trace: logInfoSchema,
  breakpointsBound: breakpointsBoundSchema,
  functionBreakpointsBound: functionBreakpointResultsSchema,
  collectHit: collectHitSchema,
} as const;

export type LuaNotification =
  | {
      readonly kind: 'stop';
      readonly cmd: StopCommand;
      readonly stack: LuaStackFrame[];
      readonly info: z.output<typeof stopInfoSchema>;
    }
  | { readonly kind: 'memory'; readonly cmd: 'refreshLuaMemory'; readonly kilobytes: number }
  | {
      readonly kind: 'log';
      readonly cmd: 'output' | 'tip' | 'tipError' | 'debug_console';
      readonly text: string;
    }
  | { readonly kind: 'trace'; readonly cmd: 'trace'; readonly text: string }
  | {
      readonly kind: 'bound';
      readonly cmd: 'breakpointsBound';
      readonly path: string;
      readonly lines: readonly { readonly line: number; readonly bound: number }[];
    }
  | {
      readonly kind: 'functionsBound';
      readonly cmd: 'functionBreakpointsBound';
      readonly results: readonly FunctionBreakpointResult[];
    }
  | { readonly kind: 'collect'; readonly cmd: 'collectHit'; readonly hit: CollectHit };

export const stopNotificationSchema = z.object({
  stack: wireArray(stackFrameSchema),
  info: stopInfoSchema.optional().transform((v) => v ?? {}),
});
