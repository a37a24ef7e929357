/** `get_debug_state` and `get_output`: an agent's bearings, and what the program printed. */
import { z } from 'zod';
import { viewOutput } from '../outputView';
import { baseOutputShape, error } from '../results';
import { count } from '../schemaIds';
import { buildStopEventData, stopEventOutline } from '../stop/stopEventData';
import { readCoroutines } from '../stop/coroutineView';
import { ANNOTATIONS, defineTool, findSession, messageOf } from './context';

export const getDebugState = defineTool({
  name: 'get_debug_state',
  title: 'Get the debug state',
  description:
    'Where things stand: state (Running, Stopped, Terminated, …), the active session, every ' +
    'live session (one per game; busy_with, exception_filters), when paused: stop_event_data, ' +
    'coroutines. Call it after "timeout" or "interrupted", or when the human may have acted.',
  inputSchema: {},
  outputSchema: {
    ...baseOutputShape,
    state: z.string().optional(),
    active_session: z.object({ id: z.string() }).optional(),
    stop_event_data: stopEventOutline.optional(),
  },
  annotations: ANNOTATIONS.readOnly,
  async handler(_args, context) {
    // An attach session with one game stands for that game (its state and stop).
    const found = findSession(context, undefined);
    const active = 'session' in found ? found.session : context.channel.activeSession();
    const result: Record<string, unknown> = {
      status: 'success',
      state: context.monitor.state(active?.id),
      active_session: active ? { id: active.id, name: active.name, type: active.type } : undefined,
      sessions: context.channel.sessions().map((s) => {
        const busy = context.monitor.busyWith(s.id);
        const filters = s.exceptionFilters.active;
        return {
          id: s.id,
          name: s.name,
          type: s.type,
          state: context.monitor.state(s.id),
          ...(s.parentId ? { parent_id: s.parentId } : {}),
          ...(busy ? { busy_with: busy } : {}),
          ...(filters ? { exception_filters: [...filters] } : {}),
        };
      }),
    };
    const stop = active ? context.monitor.lastStop(active.id) : undefined;
    if (active && stop) {
      try {
        result.stop_event_data = await buildStopEventData(
          active,
          stop,
          context.channel.breakpoints,
          context.channel.workspaceFolders(),
        );
        const coroutines = await readCoroutines(active);
        if (coroutines) result.coroutines = coroutines;
      } catch (e) {
        return error(
          'read-failed',
          `The program is paused, but its state could not be read: ${messageOf(e)}`,
        );
      }
    }
    return { status: 'success', ...result };
  },
});

export const getOutput = defineTool({
  name: 'get_output',
  title: 'Get program output',
  description:
    'Program output (stdout, stderr), logpoint lines ("logpoint") and debugger messages (console, ' +
    'important), oldest first; each line {cursor, text}. Pass next_cursor as ' +
    'cursor for new lines only. max_lines default 200; more: true: call again.',
  inputSchema: {
    cursor: count().optional(),
    max_lines: z.number().int().min(1).max(1000).optional(),
    session_id: z
      .string()
      .optional()
      .describe("Only this session's output; default: every session."),
  },
  outputSchema: {
    ...baseOutputShape,
    next_cursor: count().optional(),
    more: z.boolean().optional(),
  },
  annotations: ANNOTATIONS.readOnly,
  async handler(args, context) {
    const page = context.monitor.output.read(
      args.cursor ?? 0,
      args.max_lines ?? 200,
      args.session_id,
    );
    return {
      status: 'success',
      ...viewOutput(page),
      ...(page.dropped > 0
        ? { message: `${page.dropped} older line(s) were dropped before you read them.` }
        : {}),
    };
  },
});
