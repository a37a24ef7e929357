/**
 * `set_exception_filters`: which errors stop the program, per session, while it runs or is
 * paused (start_debugging takes the same list as `exception_filters` for the start).
 */
import { z } from 'zod';
import { EXCEPTION_FILTERS } from '../../adapter/capabilities';
import { DebugSessionPort } from '../channel';
import { ToolResult, baseOutputShape, error } from '../results';
import { ANNOTATIONS, defineTool, findSession, messageOf } from './context';

/** The Lua debugger's filters, for the descriptions and for checking a luapanda start. */
export const LUA_EXCEPTION_FILTERS: readonly string[] = EXCEPTION_FILTERS.map((f) => f.filter);

export const FILTERS_GUIDE =
  'Lua: "uncaught" (errors that end the program; the default), "caught" (errors pcall/xpcall or ' +
  'coroutine.resume catch), "assert" (failed assert() calls). [] stops on no error.';

export const filtersArg = z
  .array(z.string())
  .max(16)
  .describe(`Exception filters. ${FILTERS_GUIDE}`);

export const setExceptionFilters = defineTool({
  name: 'set_exception_filters',
  title: 'Set exception filters',
  description:
    'Chooses which errors stop the program (status "stopped", reason "exception") in one session, at ' +
    'once, running or paused, replacing the filters in effect. get_debug_state shows them.',
  inputSchema: { filters: filtersArg, session_id: z.string().optional() },
  outputSchema: {
    ...baseOutputShape,
    exception_filters: z.array(z.string()).optional(),
  },
  annotations: ANNOTATIONS.changes,
  async handler(args, context) {
    const found = findSession(context, args.session_id);
    if ('failure' in found) return found.failure;
    const { session } = found;
    const filters = [...new Set(args.filters)];
    const refused = refusedFilters(session, filters);
    if (refused) return refused;
    try {
      await session.customRequest('setExceptionBreakpoints', { filters });
    } catch (e) {
      return error('debugger-error', `The debugger refused the exception filters: ${messageOf(e)}`);
    }
    return {
      status: 'success',
      session_id: session.id,
      exception_filters: [...(session.exceptionFilters.active ?? filters)],
      available_filters: availableFilters(session),
      message:
        filters.length === 0
          ? 'No error stops the program now.'
          : `Errors stop the program for: ${filters.join(', ')}.`,
    };
  },
});

function availableFilters(session: DebugSessionPort): string[] {
  return (session.exceptionFilters.offered ?? []).map((f) => f.filter);
}

/** An error naming the filters the session's debugger does not offer, if any. */
function refusedFilters(
  session: DebugSessionPort,
  filters: readonly string[],
): ToolResult | undefined {
  const offered = session.exceptionFilters.offered;
  if (offered !== undefined && offered.length === 0) {
    return error(
      'not-supported',
      `The debugger of session "${session.name}" offers no exception filters.`,
    );
  }
  const unknown = session.exceptionFilters.unknown(filters);
  if (unknown.length === 0) return undefined;
  return error(
    'invalid-arguments',
    `Unknown exception filter(s): ${unknown.join(', ')}. This debugger offers: ` +
      `${availableFilters(session).join(', ')}.`,
  );
}

/** For start_debugging: a luapanda configuration takes only the Lua filters (checked up front). */
export function checkStartFilters(
  type: string,
  filters: readonly string[] | undefined,
): ToolResult | undefined {
  if (filters === undefined || type !== 'luapanda') return undefined;
  const unknown = filters.filter((f) => !LUA_EXCEPTION_FILTERS.includes(f));
  if (unknown.length === 0) return undefined;
  return error(
    'invalid-arguments',
    `Unknown exception filter(s): ${unknown.join(', ')}. Lua offers: ${LUA_EXCEPTION_FILTERS.join(', ')}.`,
  );
}
