/**
 * What every tool handler gets: the debug channel, the session monitor, settings, and per call
 * the cancellation signal and a progress reporter. Also the shared steps of the asynchronous
 * tools: find the session, wait for the next stop or end, and turn the outcome into a result.
 */
import { errorText } from '../../common/errorText';
import type { Tracer } from '../../common/trace';
import type { z } from 'zod';
import { DebugChannel, DebugSessionPort } from '../channel';
import { noActiveSession, notPaused, severalGames, unknownSession } from '../errors';
import { ToolResult, error } from '../results';
import { SessionMonitor, WaitOutcome } from '../sessionMonitor';
import { buildStopEventData } from '../stop/stopEventData';
import { Deadline, WaitEnded, waitEndedResult } from './deadline';

export interface ToolSettings {
  /** Default wait of the asynchronous tools, in seconds. */
  defaultTimeoutSeconds: number;
  /** Allow breakpoints in files outside the workspace folders. */
  allowOutsideWorkspace: boolean;
}

/** What an agent asks to do that runs code in the debuggee. */
export type ApprovalAction = 'evaluate' | 'setVariable' | 'reload';

/** Asks the user before an agent runs code in the debuggee; resolves false when refused. */
export type Approver = (action: ApprovalAction, detail: string) => Promise<boolean>;

export interface ToolContext {
  readonly channel: DebugChannel;
  readonly monitor: SessionMonitor;
  readonly settings: ToolSettings;
  readonly approve?: Approver;
  /** Traces each tool call and its result (`mcp.call`); default, the process's tracer. */
  readonly tracer?: Tracer;
}

export interface CallExtras {
  readonly signal: AbortSignal;
  /** Sends a progress notification when the client asked for them; otherwise does nothing. */
  readonly progress: (message: string) => void;
}

export interface ToolDefinition<Input extends z.ZodRawShape = z.ZodRawShape> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: Input;
  readonly outputSchema: z.ZodRawShape;
  readonly annotations: {
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: false;
  };
  readonly handler: (
    args: z.infer<z.ZodObject<Input>>,
    context: ToolContext,
    extras: CallExtras,
  ) => Promise<ToolResult>;
}

/** The annotation sets the tools use (MCP tool annotations; none reaches outside the machine). */
export const ANNOTATIONS = {
  /** Reads state; calling it again changes nothing. */
  readOnly: {
    readOnlyHint: true,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  /** Changes the debugger's or the program's state, without destroying anything. */
  changes: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  /** May end the program or run arbitrary code in it. */
  destructive: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: false,
  },
} as const;

/** Identity helper that keeps each tool's argument types. */
export function defineTool<Input extends z.ZodRawShape>(
  tool: ToolDefinition<Input>,
): ToolDefinition<Input> {
  return tool;
}

/**
 * The session a call addresses: `session_id`, or the active one. An attach session whose games
 * each have a session of their own stands for its only game; with several, the call fails naming
 * them. `whole` takes the session itself (stop_debugging ends an attach session and its games).
 */
/**
 * The session, as findSession, when it is a LuaPanda one: `tool` (e.g. "hot_reload_file reloads
 * Lua files") says in the failure what works in LuaPanda sessions only.
 */
export function findLuaSession(
  context: ToolContext,
  sessionId: string | undefined,
  what: string,
): { session: DebugSessionPort } | { failure: ToolResult } {
  const found = findSession(context, sessionId);
  if ('failure' in found || found.session.type === 'luapanda') return found;
  const { session } = found;
  return {
    failure: error(
      'not-supported',
      `Session "${session.name}" is a ${session.type} session; ${what} in LuaPanda (luapanda) ` +
        'sessions only.',
    ),
  };
}

export function findSession(
  context: ToolContext,
  sessionId: string | undefined,
  options: { whole?: boolean } = {},
): { session: DebugSessionPort } | { failure: ToolResult } {
  const sessions = context.channel.sessions();
  let session: DebugSessionPort | undefined;
  if (sessionId !== undefined) {
    session = sessions.find((s) => s.id === sessionId);
    if (!session) {
      const known = sessions.map((s) => `${s.id} (${s.name})`).join(', ') || 'none';
      return { failure: unknownSession(sessionId, known) };
    }
  } else {
    session = context.channel.activeSession();
    if (!session) return { failure: noActiveSession() };
  }
  if (options.whole) return { session };
  const games = gamesOf(context, session);
  if (games.length === 0) return { session };
  if (games.length === 1) return { session: games[0] };
  return { failure: severalGames(session, games) };
}

/** The sessions of the games attached to `session` (an attach session), oldest first. */
export function gamesOf(context: ToolContext, session: DebugSessionPort): DebugSessionPort[] {
  return context.channel.sessions().filter((s) => s.parentId === session.id);
}

/** The addressed session, checked to be paused: what the inspection tools start with. */
export function findStoppedSession(
  context: ToolContext,
  sessionId: string | undefined,
): { session: DebugSessionPort } | { failure: ToolResult } {
  const found = findSession(context, sessionId);
  if ('failure' in found) return found;
  const notStopped = requireStopped(context, found.session);
  return notStopped ? { failure: notStopped } : found;
}

/** Checks that the session is paused, for the tools that need a stopped program. */
export function requireStopped(
  context: ToolContext,
  session: DebugSessionPort,
): ToolResult | undefined {
  const state = context.monitor.state(session.id);
  if (state === 'Stopped') return undefined;
  return notPaused(state);
}

export function timeoutMs(context: ToolContext, timeoutSeconds: number | undefined): number {
  return Math.round((timeoutSeconds ?? context.settings.defaultTimeoutSeconds) * 1000);
}

/** The agent's deadline for one asynchronous call. */
export function deadlineFor(
  context: ToolContext,
  timeoutSeconds: number | undefined,
  extras: CallExtras,
): Deadline {
  return new Deadline(timeoutMs(context, timeoutSeconds), extras.signal);
}

/**
 * Waits (until the deadline) for the next stop or end of `session` after `mark`, and describes
 * the outcome. `unconfirmed` says why the command that set it going was not confirmed (see
 * `sendCommand`), for a timeout's message.
 */
export async function awaitStop(
  context: ToolContext,
  session: DebugSessionPort,
  mark: number,
  deadline: Deadline,
  extras: CallExtras,
  waitingFor: string,
  unconfirmed?: string,
  options: { games?: boolean } = {},
): Promise<ToolResult> {
  extras.progress(waitingFor);
  const heartbeat = setInterval(() => extras.progress(waitingFor), 5_000);
  let outcome: WaitOutcome;
  try {
    outcome = await context.monitor.waitForStopOrEnd(session.id, mark, {
      timeoutMs: deadline.remainingMs(),
      signal: extras.signal,
      games: options.games,
    });
  } finally {
    clearInterval(heartbeat);
  }
  // With games: the session (a game's) whose stop or end it was.
  const whose = 'session' in outcome && outcome.session ? outcome.session : session;
  const result =
    outcome.kind === 'timeout'
      ? timeoutResult(context, session, deadline, unconfirmed)
      : await describeOutcome(context, whose, outcome, deadline);
  const warned = withWarnings(result, context.monitor.takeWarnings(whose.id));
  return options.games ? { ...warned, session_id: whose.id } : warned;
}

/** A result with the session's new warnings (each said once), when there are any. */
export function withWarnings(result: ToolResult, warnings: readonly string[]): ToolResult {
  return warnings.length > 0 ? { ...result, warnings: [...warnings] } : result;
}

/** `timeout`: nothing came in time; says what the debugger is still busy with, if it said. */
function timeoutResult(
  context: ToolContext,
  session: DebugSessionPort,
  deadline: Deadline,
  unconfirmed: string | undefined,
): ToolResult {
  const within = `No stop within ${deadline.seconds} s (timeout_seconds).`;
  const busy = context.monitor.busyWith(session.id);
  if (busy) {
    return {
      status: 'timeout',
      message:
        `${within} The debugger is still busy: ${busy} The session goes on: start the game if ` +
        'it waits for one, then call get_debug_state; or stop_debugging to end the wait.',
    };
  }
  const what = unconfirmed ?? 'The program is still running.';
  return {
    status: 'timeout',
    message:
      `${within} ${what} Call continue_debugging again to keep waiting, pause_debugging to ` +
      'stop it now, or get_debug_state to check.',
  };
}

export async function describeOutcome(
  context: ToolContext,
  session: DebugSessionPort,
  outcome: Exclude<WaitOutcome, { kind: 'timeout' }>,
  deadline: Deadline,
): Promise<ToolResult> {
  switch (outcome.kind) {
    case 'stopped':
      try {
        return {
          status: 'stopped',
          stop_event_data: await deadline.within(
            buildStopEventData(
              session,
              outcome.stop,
              context.channel.breakpoints,
              context.channel.workspaceFolders(),
            ),
            'the requests that read the state of the stop (the program did stop)',
          ),
        };
      } catch (e) {
        if (e instanceof WaitEnded) return waitEndedResult(e, deadline);
        return error(
          'read-failed',
          `The program stopped, but its state could not be read: ${(e as Error).message}`,
        );
      }
    case 'ended': {
      const how = outcome.reason
        ? `: ${outcome.reason.trim()}`
        : outcome.exitCode !== undefined
          ? ` (exit code ${outcome.exitCode}).`
          : '.';
      if (outcome.error !== undefined) {
        return error('session-ended', `The debug session "${session.name}" ended${how}`);
      }
      return {
        status: 'completed',
        message:
          `The debug session "${session.name}" ended${how}` +
          ' Call get_output to see what the program printed.',
      };
    }
    case 'interrupted':
      return {
        status: 'interrupted',
        message: `The wait was interrupted: ${outcome.reason} Call get_debug_state to see where things stand.`,
      };
    case 'cancelled':
      return {
        status: 'interrupted',
        message: 'The request was cancelled; the session was left as it was.',
      };
  }
}

/** The message of an error from a debugger request. */
export const messageOf = errorText;
