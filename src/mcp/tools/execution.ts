/**
 * The tools that move the program: `start_debugging`, `continue_debugging`, `step_execution`,
 * `pause_debugging` (asynchronous: they send their command, then wait for the next stop or the
 * end) and `stop_debugging`.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { z } from 'zod';
import { DebugSessionPort } from '../channel';
import { readLaunchConfigurations } from '../launchConfig';
import { noWorkspace } from '../errors';
import { ToolResult, asyncBaseOutputShape, baseOutputShape, error } from '../results';
import { adapterId } from '../schemaIds';
import { stopEventOutline } from '../stop/stopEventData';
import {
  ANNOTATIONS,
  CallExtras,
  ToolContext,
  awaitStop,
  deadlineFor,
  defineTool,
  describeOutcome,
  findSession,
  findStoppedSession,
  gamesOf,
  messageOf,
} from './context';
import {
  Deadline,
  WaitEnded,
  isCompiledPause,
  isRequestTimeout,
  waitEndedResult,
} from './deadline';
import { checkStartFilters, filtersArg } from './exceptionFilters';

const asyncOutput = {
  ...asyncBaseOutputShape,
  stop_event_data: stopEventOutline.optional(),
  warnings: z.array(z.string()).optional(),
};
/** Described once, on start_debugging; the continuing tools point there (tools/list size). */
const timeoutArg = z.number().min(0.1).max(3600).optional();
const sessionArg = z.string().optional();

const STATUS_GUIDE =
  'Results: "stopped" (stop_event_data: where, why, locals, source), "completed" (see ' +
  'get_output), "timeout" (still running), "interrupted" (see get_debug_state), ' +
  '"error". warnings: e.g. a failing breakpoint condition.';
/** The continuing tools point to start_debugging's guide rather than repeat it (tools/list size). */
const SAME_RESULTS = 'Results, warnings and timeout_seconds as for start_debugging.';

export const startDebugging = defineTool({
  name: 'start_debugging',
  title: 'Start debugging',
  description:
    'Starts configuration_name (from get_debugger_configurations) and waits for the first stop ' +
    '(entry, breakpoint, error) or the end; no_debug: true runs without debugging to the end. ' +
    STATUS_GUIDE,
  inputSchema: {
    configuration_name: z.string().min(1),
    no_debug: z.boolean().optional(),
    exception_filters: filtersArg
      .optional()
      .describe('As for set_exception_filters (default ["uncaught"]).'),
    timeout_seconds: timeoutArg.describe('Seconds to wait (default 30).'),
  },
  outputSchema: { ...asyncOutput, session_id: z.string().optional() },
  annotations: ANNOTATIONS.changes,
  async handler(args, context, extras) {
    const [folder] = context.channel.workspaceFolders();
    if (!folder) return noWorkspace('are no configurations to start');
    let configurations;
    try {
      configurations = await readLaunchConfigurations(folder);
    } catch (e) {
      return error('invalid-configuration', messageOf(e));
    }
    const config = configurations.find((c) => c.name === args.configuration_name);
    if (!config) {
      const names = configurations.map((c) => `"${c.name}"`).join(', ') || 'none';
      return error(
        'invalid-configuration',
        `No configuration named "${args.configuration_name}". Available: ${names}.`,
      );
    }
    const badFilters = checkStartFilters(config.type, args.exception_filters);
    if (badFilters) return badFilters;
    const deadline = deadlineFor(context, args.timeout_seconds, extras);
    const mark = context.monitor.mark();
    const starting = context.monitor.beginStarting();
    const waitingFor =
      config.request === 'attach'
        ? `waiting for the Lua VM to connect on :${String(config.connectionPort ?? 8818)}…`
        : `starting "${config.name}"…`;
    extras.progress(waitingFor);
    let session: DebugSessionPort;
    try {
      session = await deadline.within(
        context.channel.startDebugging(config, {
          noDebug: args.no_debug === true,
          exceptionFilters: args.exception_filters,
        }),
        'the start',
      );
    } catch (e) {
      if (e instanceof WaitEnded) return startNotFinished(e, deadline, config.name);
      return error('start-failed', `Could not start "${config.name}": ${messageOf(e)}`);
    } finally {
      starting.dispose();
    }
    const result = await awaitStop(
      context,
      session,
      mark,
      deadline,
      extras,
      args.no_debug
        ? 'running without debugging until the program ends…'
        : 'waiting for the program to stop or end…',
      undefined,
      // An attach session hands each game to a session of its own: the first game's stop (or
      // end) is the answer, with that game's session_id.
      { games: true },
    );
    return withOtherGames(context, session, result);
  },
});

/**
 * The other games that came in on the started attach session's port, each a session of its own,
 * as they stand when start_debugging returns (an agent addresses them by session_id), and a
 * sentence saying so after the result's message.
 */
function withOtherGames(
  context: ToolContext,
  session: DebugSessionPort,
  result: ToolResult,
): ToolResult {
  const others = gamesOf(context, session).filter((s) => s.id !== result.session_id);
  if (others.length === 0) return result;
  const note =
    `${others.length} more game(s) connected to this attach port, each a session of its own ` +
    '(other_sessions): pass its session_id to the other tools.';
  const message = typeof result.message === 'string' ? `${result.message} ${note}` : note;
  return {
    ...result,
    message,
    other_sessions: others.map((s) => ({ session_id: s.id, name: s.name })),
  };
}

/** The start itself did not finish within the agent's deadline (or was cancelled). */
function startNotFinished(ended: WaitEnded, deadline: Deadline, name: string): ToolResult {
  if (ended.kind === 'cancelled') return waitEndedResult(ended, deadline);
  return {
    status: 'timeout',
    message:
      `The debugger did not finish starting "${name}" within ${deadline.seconds} s ` +
      '(timeout_seconds): the Lua side has not answered yet (it may be busy in native code, or ' +
      'hung), or an attach configuration still waits for the game — start the game. The start ' +
      'goes on: call get_debug_state to check, or stop_debugging.',
  };
}

/** Checks the thread id against the session's threads, with a message listing the real ones. */
async function checkThread(
  session: DebugSessionPort,
  threadId: number,
): Promise<ToolResult | undefined> {
  const { threads } = (await session.customRequest(
    'threads',
  )) as DebugProtocol.ThreadsResponse['body'];
  if (threads.some((t) => t.id === threadId)) return undefined;
  const known = threads.map((t) => `${t.id} (${t.name})`).join(', ') || 'none';
  return error(
    'unknown-thread',
    `No thread with id ${threadId}. Threads: ${known}. Use stop_event_data.thread_id.`,
  );
}

async function resume(
  context: ToolContext,
  sessionId: string | undefined,
  threadId: number,
  command: 'continue' | 'next' | 'stepIn' | 'stepOut',
  timeoutSeconds: number | undefined,
  extras: CallExtras,
): Promise<ToolResult> {
  if (command === 'continue') {
    const waiting = keepWaiting(context, sessionId, timeoutSeconds, extras);
    if (waiting) return waiting;
  }
  const found = findStoppedSession(context, sessionId);
  if ('failure' in found) return found.failure;
  const { session } = found;
  const deadline = deadlineFor(context, timeoutSeconds, extras);
  try {
    const badThread = await deadline.within(checkThread(session, threadId), "'threads'");
    if (badThread) return badThread;
    const mark = context.monitor.mark();
    const unconfirmed = await sendCommand(session, command, { threadId }, deadline);
    if (!unconfirmed) context.monitor.markRunning(session.id, mark);
    const what = command === 'continue' ? 'the next stop or the end' : 'the step to finish';
    return await awaitStop(
      context,
      session,
      mark,
      deadline,
      extras,
      `waiting for ${what}…`,
      unconfirmed,
    );
  } catch (e) {
    if (e instanceof WaitEnded) return waitEndedResult(e, deadline);
    return error('debugger-error', messageOf(e));
  }
}

/**
 * continue_debugging on a program that already runs (a wait that ended at its deadline, or a
 * start still waiting for its game): the timeout result tells the agent to call it again to keep
 * waiting, so it waits for the next stop or the end, sending nothing. Undefined when the session
 * is stopped (resume it) or missing (resume says so).
 */
function keepWaiting(
  context: ToolContext,
  sessionId: string | undefined,
  timeoutSeconds: number | undefined,
  extras: CallExtras,
): Promise<ToolResult> | undefined {
  const found = findSession(context, sessionId);
  if ('failure' in found) return undefined;
  const state = context.monitor.state(found.session.id);
  if (state !== 'Running' && state !== 'Starting') return undefined;
  // (No await between the state read and the mark: a stop cannot fall between them.)
  const mark = context.monitor.mark();
  const deadline = deadlineFor(context, timeoutSeconds, extras);
  return awaitStop(
    context,
    found.session,
    mark,
    deadline,
    extras,
    'waiting for the next stop or the end…',
  ).catch((e: unknown) =>
    e instanceof WaitEnded ? waitEndedResult(e, deadline) : error('debugger-error', messageOf(e)),
  );
}

/**
 * Sends a command that sets the program going, within the deadline. When the debugger gives up
 * on the Lua side's answer before the deadline, the command may still take effect (a stop may
 * still come): resolves with a sentence saying so, for a timeout's message, and the wait goes on.
 * So does a pause that waits for LuaJIT-compiled code to end (the debugger's explanation).
 */
async function sendCommand(
  session: DebugSessionPort,
  command: string,
  args: object,
  deadline: Deadline,
): Promise<string | undefined> {
  try {
    await deadline.within(session.customRequest(command, args), `'${command}'`);
    return undefined;
  } catch (e) {
    if (isRequestTimeout(e)) {
      return (
        `The debugger did not confirm '${command}' (the Lua side did not answer it); the ` +
        'program may be busy in native code, or hung.'
      );
    }
    if (isCompiledPause(e)) return messageOf(e);
    throw e;
  }
}

export const continueDebugging = defineTool({
  name: 'continue_debugging',
  title: 'Continue',
  description:
    'Resumes the paused program and waits for the next stop or the end. thread_id: stop_event_data.thread_id. ' +
    SAME_RESULTS,
  inputSchema: { thread_id: adapterId(), session_id: sessionArg, timeout_seconds: timeoutArg },
  outputSchema: asyncOutput,
  annotations: ANNOTATIONS.changes,
  handler: (args, context, extras) =>
    resume(context, args.session_id, args.thread_id, 'continue', args.timeout_seconds, extras),
});

const STEP_COMMANDS = { over: 'next', into: 'stepIn', out: 'stepOut' } as const;

export const stepExecution = defineTool({
  name: 'step_execution',
  title: 'Step',
  description:
    'Steps the paused program, step_type "over" (next line), "into" (into a call) or "out" (to the ' +
    'caller), and waits for it. ' +
    SAME_RESULTS,
  inputSchema: {
    thread_id: adapterId(),
    step_type: z.enum(['over', 'into', 'out']),
    session_id: sessionArg,
    timeout_seconds: timeoutArg,
  },
  outputSchema: asyncOutput,
  annotations: ANNOTATIONS.changes,
  handler: (args, context, extras) =>
    resume(
      context,
      args.session_id,
      args.thread_id,
      STEP_COMMANDS[args.step_type],
      args.timeout_seconds,
      extras,
    ),
});

export const pauseDebugging = defineTool({
  name: 'pause_debugging',
  title: 'Pause',
  description:
    'Pauses the running program and waits for the stop ("stopped", stop_event_data); thread_id ' +
    'optional. Already paused: returns the current stop.',
  inputSchema: {
    thread_id: adapterId().optional(),
    session_id: sessionArg,
    timeout_seconds: timeoutArg,
  },
  outputSchema: asyncOutput,
  annotations: ANNOTATIONS.changes,
  async handler(args, context, extras) {
    const found = findSession(context, args.session_id);
    if ('failure' in found) return found.failure;
    const { session } = found;
    const deadline = deadlineFor(context, args.timeout_seconds, extras);
    const current = context.monitor.lastStop(session.id);
    if (current) {
      const result = await describeOutcome(
        context,
        session,
        { kind: 'stopped', stop: current },
        deadline,
      );
      return { ...result, message: 'The program was already paused.' };
    }
    try {
      const threadId =
        args.thread_id ??
        (
          (await deadline.within(
            session.customRequest('threads'),
            "'threads'",
          )) as DebugProtocol.ThreadsResponse['body']
        ).threads[0]?.id ??
        1;
      const mark = context.monitor.mark();
      const unconfirmed = await sendCommand(session, 'pause', { threadId }, deadline);
      return await awaitStop(
        context,
        session,
        mark,
        deadline,
        extras,
        'waiting for the program to pause…',
        unconfirmed,
      );
    } catch (e) {
      if (e instanceof WaitEnded) return waitEndedResult(e, deadline);
      return error('debugger-error', messageOf(e));
    }
  },
});

export const stopDebugging = defineTool({
  name: 'stop_debugging',
  title: 'Stop debugging',
  description:
    'Ends the session: terminates a launched program, detaches from an attached game (it runs on). ' +
    'Calls waiting on it return "interrupted".',
  inputSchema: { session_id: sessionArg },
  outputSchema: baseOutputShape,
  annotations: ANNOTATIONS.destructive,
  async handler(args, context) {
    const found = findSession(context, args.session_id, { whole: true });
    if ('failure' in found) return found.failure;
    // Without session_id, what start_debugging started: an attach session with all its games.
    const parent = args.session_id === undefined ? found.session.parentId : undefined;
    const session = context.channel.sessions().find((s) => s.id === parent) ?? found.session;
    context.monitor.interrupt('stop_debugging ended the session.', session.id);
    context.monitor.markTerminating(session.id);
    try {
      await context.channel.stopDebugging(session);
    } catch (e) {
      return error('stop-failed', `The session could not be stopped cleanly: ${messageOf(e)}`);
    }
    return {
      status: 'success',
      message: `Stopped the debug session "${session.name}" (${session.id}).`,
    };
  },
});
