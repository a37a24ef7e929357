/** `get_debug_state` and `get_output`: an agent's bearings, and what the program printed. */
import { z } from 'zod';
import { outputViewShape, viewOutput } from '../outputView';
import { baseOutputShape, error } from '../results';
import { buildStopEventData, stopEventDataSchema } from '../stopEventData';
import { ANNOTATIONS, defineTool, messageOf } from './context';

export const getDebugState = defineTool({
  name: 'get_debug_state',
  title: 'Get the debug state',
  description:
    'Where things stand: state (Idle, Starting, Running, Stopped, Terminating, Terminated), the active session ' +
    '(id, name, type), every live session (busy_with: what its debugger is waiting for, e.g. the game to ' +
    'connect; exception_filters: which errors stop it), and the latest stop_event_data when paused. Call it after a ' +
    '"timeout" or "interrupted" result, or when the human may have acted in the debug UI.',
  inputSchema: {},
  outputSchema: {
    ...baseOutputShape,
    state: z
      .enum(['Idle', 'Starting', 'Running', 'Stopped', 'Terminating', 'Terminated'])
      .optional(),
    active_session: z
      .object({ id: z.string(), name: z.string(), type: z.string() })
      .nullable()
      .optional(),
    sessions: z
      .array(
        z.object({
          id: z.string(),
          name: z.string(),
          type: z.string(),
          state: z.string(),
          busy_with: z.string().optional(),
          exception_filters: z.array(z.string()).optional(),
        }),
      )
      .optional(),
    stop_event_data: stopEventDataSchema.optional(),
  },
  annotations: ANNOTATIONS.readOnly,
  async handler(_args, context) {
    const active = context.channel.activeSession();
    const result: Record<string, unknown> = {
      status: 'success',
      state: context.monitor.state(active?.id),
      active_session: active ? { id: active.id, name: active.name, type: active.type } : null,
      sessions: context.channel.sessions().map((s) => {
        const busy = context.monitor.busyWith(s.id);
        const filters = s.exceptionFilters.active;
        return {
          id: s.id,
          name: s.name,
          type: s.type,
          state: context.monitor.state(s.id),
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
        );
      } catch (e) {
        return error(`The program is paused, but its state could not be read: ${messageOf(e)}`);
      }
    }
    return { status: 'success', ...result };
  },
});

export const getOutput = defineTool({
  name: 'get_output',
  title: 'Get program output',
  description:
    'What the debugged program printed (stdout, stderr), what logpoints logged (category "logpoint") and what ' +
    'the debugger said (console, important), oldest first, in the order it happened. groups: runs of ' +
    'consecutive lines of one category, each line {cursor, text}; session_id and the first and last ' +
    'timestamp are said once. Pass the next_cursor of the previous call as cursor to read only new lines. ' +
    'max_lines defaults to 200 (at most 1000); more: true means call again.',
  inputSchema: {
    cursor: z.number().int().min(0).optional(),
    max_lines: z.number().int().min(1).max(1000).optional(),
    session_id: z
      .string()
      .optional()
      .describe("Only this session's output; default: every session."),
  },
  outputSchema: { ...baseOutputShape, ...outputViewShape },
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
