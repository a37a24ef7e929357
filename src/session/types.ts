/**
 * The shapes a session hands to its consumers (the DAP adapter, the MCP tools): settings, stops,
 * frames, variables, output and the typed event map. Nothing here knows DAP or MCP.
 */
import type { Tracer } from '../common/trace';
import type { LuaConnection, ProtocolError, StopCommand } from '../protocol';
import type { Breakpoint } from './breakpoints/breakpoints';
import type { FunctionBreakpoint } from './breakpoints/functionBreakpoints';
import type { SessionError } from './errors';
import type { StateChange } from './state';

/** What a session needs of a Lua link; `LuaConnection` is one, unit tests use fakes. */
export type SessionConnection = Pick<
  LuaConnection,
  'request' | 'notify' | 'on' | 'off' | 'close' | 'destroy' | 'closed'
>;

/** How the session talks to the Lua side: the launch.json attributes that concern it. */
export interface SessionSettings {
  /** Workspace root: relative chunk names are looked up here; sent to Lua as `cwd`. */
  readonly cwd: string;
  readonly stopOnEntry: boolean;
  readonly luaFileExtension: string;
  readonly pathCaseSensitivity: boolean;
  readonly autoPathMode: boolean;
  readonly isNeedB64EncodeStr: boolean;
  readonly useCHook: boolean;
  readonly logLevel: 0 | 1 | 2;
  readonly tempFilePath?: string;
  readonly distinguishSameNameFile: boolean;
  readonly truncatedOPath: string;
  readonly developmentMode: boolean;
  readonly docPathReplace?: readonly [string, string];
  /** Wait for the game to connect again when the link drops (attach, listening). */
  readonly autoReconnect: boolean;
  /**
   * The pairing secret (`connectionSecret`): the game must prove it, and is shown ours, before
   * anything else crosses the link (`pairingHandshake.ts`); absent, upstream's handshake.
   */
  readonly connectionSecret?: string;
  /** Bound on every request to the Lua side. */
  readonly requestTimeoutMs: number;
  /** Longest child list asked for in one request when the runtime pages (feature `paging`). */
  readonly pagingLimit: number;
  /**
   * LuaJIT with its compiler on (feature `jitCompiles`): how long a pause may go unanswered
   * before the caller is told that compiled code is running (the pause stays pending).
   */
  readonly compiledPauseMs: number;
  /** Traces the session's state changes, its wire and the runtime's own lines (`trace`). */
  readonly tracer?: Tracer;
}

export const DEFAULT_SETTINGS: Omit<SessionSettings, 'cwd'> = {
  stopOnEntry: false,
  luaFileExtension: '',
  pathCaseSensitivity: false,
  autoPathMode: true,
  isNeedB64EncodeStr: true,
  useCHook: false,
  logLevel: 1,
  distinguishSameNameFile: false,
  truncatedOPath: '',
  developmentMode: false,
  autoReconnect: false,
  requestTimeoutMs: 10_000,
  pagingLimit: 1000,
  compiledPauseMs: 2000,
};

export type StopReason = 'entry' | 'breakpoint' | 'step' | 'pause' | 'exception';

export interface Frame {
  /** Handle of the frame, valid until the program moves. */
  readonly id: number;
  readonly name: string;
  /** The workspace file, when the chunk name maps to one. */
  readonly path?: string;
  /** What the Lua side called the file (`file`, or `oPath` when present). */
  readonly chunk: string;
  readonly line: number;
  readonly threadId: number;
  /** The frame's `index` on the Lua side (its `stackId`). */
  readonly luaIndex: number;
  /** The line its function is defined at (our runtime; absent for a main chunk and upstream). */
  readonly defined?: number;
}

/** The program's call of the protected call (pcall, xpcall) that catches an error. */
export interface CaughtSite {
  /** The workspace file, when the chunk name maps to one. */
  readonly path?: string;
  readonly chunk: string;
  readonly line: number;
}

export interface Thread {
  readonly id: number;
  readonly name: string;
}

export interface StopInfo {
  readonly reason: StopReason;
  readonly description: string;
  /** The protocol command that reported the stop. */
  readonly cmd: StopCommand;
  readonly threadId: number;
  readonly frames: readonly Frame[];
  readonly hitBreakpointIds: readonly number[];
  readonly exceptionText?: string;
  readonly uncaught?: boolean;
  /** A caught error: where the program called the pcall/xpcall that catches it. */
  readonly caughtAt?: CaughtSite;
  /** ISO 8601 UTC, when the stop was seen. */
  readonly timestamp: string;
}

export type ScopeKind = 'locals' | 'upvalues' | 'globals';

export interface Scope {
  readonly name: string;
  readonly kind: ScopeKind;
  readonly variablesReference: number;
  readonly expensive: boolean;
}

export interface Variable {
  readonly name: string;
  readonly value: string;
  readonly type: string;
  /** A handle (> 0) when the value can be expanded, else 0. */
  readonly variablesReference: number;
  /** Number of children, when the runtime says (paging). */
  readonly childCount?: number;
  readonly evaluateName?: string;
  /** `virtual`: not a value of the program but a group of its children (`[101..200]`). */
  readonly presentationHint?: 'virtual';
  /** The value at the last stop in the same function, when it differs (changeMemory.ts). */
  readonly previous?: string;
}

export interface EvaluateResult {
  readonly value: string;
  readonly type: string;
  readonly variablesReference: number;
  readonly childCount?: number;
}

export type OutputCategory = 'stdout' | 'stderr' | 'console' | 'log' | 'important';

export interface OutputEntry {
  readonly category: OutputCategory;
  readonly text: string;
  readonly timestamp: string;
}

export interface TerminatedInfo {
  readonly reason: string;
  /** Present when the session ended because something failed. */
  readonly error?: SessionError;
}

export interface LuaSessionEvents {
  state: [StateChange];
  stopped: [StopInfo];
  continued: [{ readonly threadId: number; readonly allThreadsContinued: boolean }];
  output: [OutputEntry];
  breakpoints: [readonly Breakpoint[]];
  /** Function breakpoints changed (a pending name bound once its code loaded…). */
  functionBreakpoints: [readonly FunctionBreakpoint[]];
  /** Something about a breakpoint to say once: its condition does not parse, or failed. */
  warning: [string];
  process: [{ readonly pid: number; readonly name: string }];
  connected: [{ readonly runtime: string; readonly features: readonly string[] }];
  /**
   * The Lua side sent a frame that breaks the protocol (malformed, unknown, a reply nobody
   * waits for). The frame was dropped and the session goes on; a console line says so too.
   */
  protocolError: [ProtocolError];
  /** `exitCode` is 128 + the signal's number when a signal ended the program. */
  exited: [{ readonly exitCode: number; readonly signal?: NodeJS.Signals }];
  terminated: [TerminatedInfo];
}
