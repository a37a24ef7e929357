/**
 * The small channel the MCP tools are written against: debug sessions that take DAP requests and
 * emit DAP events, a way to start them, and breakpoints that exist with or without a session.
 * Headless, our adapter runs in process behind it (headless/headlessChannel.ts); inside VS Code
 * it is VS Code's own debug API, so the same tools drive any debugger the user has.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import type { ExceptionFilterEntry, ExceptionFilterState } from './exceptionFilters';

export interface Disposable {
  dispose(): void;
}

/** One running debug session, as the tools see it. */
export interface DebugSessionPort {
  readonly id: string;
  readonly name: string;
  /** The debug type: `luapanda`, `node`, … */
  readonly type: string;
  /**
   * For a further game on an attach port: the id of the attach session it came in on (its own
   * program, not part of the parent's).
   */
  readonly parentId?: string;
  /**
   * Sends a DAP request and resolves with the response body; rejects with the adapter's message.
   * `timeoutMs`: how long a request that waits on purpose (`luapanda/collect`) may take, where the
   * channel bounds requests itself (headless); VS Code bounds none.
   */
  customRequest(command: string, args?: unknown, timeoutMs?: number): Promise<unknown>;
  /** The exception filters in effect (as last sent to the debugger) and those it offers. */
  readonly exceptionFilters: ExceptionFilterState;
}

export interface StartOptions {
  noDebug: boolean;
  /**
   * Exception filters to apply before the program runs, instead of the debugger's defaults (or,
   * in VS Code, the Breakpoints view's choice).
   */
  exceptionFilters?: readonly ExceptionFilterEntry[];
}

/** A launch configuration as written in launch.json. */
export interface LaunchConfiguration {
  name: string;
  type: string;
  request: string;
  [attribute: string]: unknown;
}

export interface BreakpointSpec {
  /** Absolute, normalised path. */
  readonly filePath: string;
  readonly line: number;
  readonly column?: number;
  readonly condition?: string;
  readonly hitCondition?: string;
  readonly logMessage?: string;
}

export interface BreakpointInfo extends BreakpointSpec {
  /** Our id: a number, stable for the life of the breakpoint. */
  readonly id: number;
  /** Where it is bound (or will bind): `line` is the line asked for. */
  readonly boundLine?: number;
  readonly verified: boolean;
  /** Why the breakpoint is not verified, or where it moved, when the debugger or the checks said. */
  readonly message?: string;
}

/** A function breakpoint: the function as Lua source names it (`Entity:update`, `util.helper`). */
export interface FunctionBreakpointSpec {
  readonly functionName: string;
  readonly condition?: string;
  readonly hitCondition?: string;
  readonly logMessage?: string;
}

export interface FunctionBreakpointInfo extends FunctionBreakpointSpec {
  /** Our id, from the same sequence as line breakpoints'. */
  readonly id: number;
  readonly verified: boolean;
  readonly message?: string;
  /** Where a session bound it: the function's file and first line. */
  readonly filePath?: string;
  readonly line?: number;
}

export interface BreakpointService {
  list(): BreakpointInfo[];
  add(spec: BreakpointSpec): Promise<BreakpointInfo>;
  listFunctions(): FunctionBreakpointInfo[];
  addFunction(spec: FunctionBreakpointSpec): Promise<FunctionBreakpointInfo>;
  /** Removes breakpoints of either kind. */
  remove(ids: readonly number[]): Promise<void>;
  /** Our id for a breakpoint id that a session's adapter reported (e.g. in `hitBreakpointIds`). */
  idForAdapterBreakpoint(sessionId: string, adapterId: number): number | undefined;
}

export type DebugEventListener = (session: DebugSessionPort, event: DebugProtocol.Event) => void;

export interface DebugChannel {
  /** Absolute paths of the workspace folders; the first is the default. */
  workspaceFolders(): string[];
  /** Starts a session; resolves once the debugger accepted the launch or attach. */
  startDebugging(config: LaunchConfiguration, options: StartOptions): Promise<DebugSessionPort>;
  /** Ends a session: terminates a launched program, detaches from an attached one. */
  stopDebugging(session: DebugSessionPort): Promise<void>;
  activeSession(): DebugSessionPort | undefined;
  sessions(): DebugSessionPort[];
  /**
   * Every DAP event of every session, in order. `sessionStarted` is delivered before any event of
   * that session, and `sessionEnded` after its last.
   */
  onEvent(listener: DebugEventListener): Disposable;
  onSessionStarted(listener: (session: DebugSessionPort) => void): Disposable;
  onSessionEnded(listener: (session: DebugSessionPort) => void): Disposable;
  readonly breakpoints: BreakpointService;
}
