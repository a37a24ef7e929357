/**
 * `set_exception_filters`: which errors stop the program, per session, while it runs or is
 * paused (start_debugging takes the same list as `exception_filters` for the start).
 */
import { z } from 'zod';
import { EXCEPTION_FILTERS } from '../../adapter/capabilities';
import { DebugSessionPort } from '../channel';
import { ExceptionFilterEntry, exceptionBreakpointsArgs, filterName } from '../exceptionFilters';
import { ToolResult, baseOutputShape, error } from '../results';
import { ANNOTATIONS, defineTool, findSession, gamesOf, messageOf } from './context';

/** The Lua debugger's filters, for the descriptions and for checking a luapanda start. */
export const LUA_EXCEPTION_FILTERS: readonly string[] = EXCEPTION_FILTERS.map((f) => f.filter);

export const FILTERS_GUIDE =
  'Lua: "uncaught" (errors that end the program; default), "caught" (errors ' +
  'pcall/xpcall/coroutine.resume catch), "assert" (failed assert() calls). [] stops on no error. ' +
  '{filter, condition}: only errors whose message contains condition.';

export const filtersArg = z
  .array(z.union([z.string(), z.object({ filter: z.string(), condition: z.string().min(1) })]))
  .max(16)
  .describe(FILTERS_GUIDE);

export const setExceptionFilters = defineTool({
  name: 'set_exception_filters',
  title: 'Set exception filters',
  description:
    'Replaces which errors stop the program (reason "exception") in a session (attach ' +
    'session: all its games), running or paused. get_debug_state shows them.',
  inputSchema: { filters: filtersArg, session_id: z.string().optional() },
  // (exception_filters, available_filters, games: in the result, undeclared to keep tools/list
  // small.)
  outputSchema: baseOutputShape,
  annotations: ANNOTATIONS.changes,
  async handler(args, context) {
    const found = findSession(context, args.session_id, { whole: true });
    if ('failure' in found) return found.failure;
    const { session } = found;
    const filters = distinct(args.filters);
    const refused = refusedFilters(session, filters);
    if (refused) return refused;
    // An attach session with games: every game gets them, and the attach session keeps them for
    // the games that connect later.
    const games = gamesOf(context, session);
    const problems: string[] = [];
    for (const target of [session, ...games]) {
      let answer: unknown;
      try {
        answer = await target.customRequest(
          'setExceptionBreakpoints',
          exceptionBreakpointsArgs(filters),
        );
      } catch (e) {
        const whose = games.length > 0 ? ` (session "${target.name}", ${target.id})` : '';
        return error(
          'debugger-error',
          `The debugger refused the exception filters${whose}: ${messageOf(e)}`,
        );
      }
      problems.push(...unverifiedMessages(answer).filter((p) => !problems.includes(p)));
    }
    const where =
      games.length > 0
        ? ` In ${games.length} game(s) (${games.map((g) => `"${g.name}"`).join(', ')}), and in ` +
          'games that attach later.'
        : '';
    return {
      status: 'success',
      session_id: session.id,
      ...(games.length > 0 ? { games: games.map((g) => g.id) } : {}),
      exception_filters: [...(session.exceptionFilters.active ?? filters)],
      available_filters: availableFilters(session),
      message:
        (filters.length === 0
          ? 'No error stops the program now.'
          : `Errors stop the program for: ${filters.map(describeEntry).join(', ')}.`) +
        where +
        (problems.length > 0 ? ` But: ${problems.join(' ')}` : ''),
    };
  },
});

/** The entries without repeats (the same name, or the same name and condition). */
function distinct(entries: readonly ExceptionFilterEntry[]): ExceptionFilterEntry[] {
  const seen = new Set<string>();
  return entries.filter((entry) => {
    const key = JSON.stringify(entry);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function describeEntry(entry: ExceptionFilterEntry): string {
  return typeof entry === 'string'
    ? entry
    : `${entry.filter} (message contains "${entry.condition}")`;
}

/** The reasons the debugger gave for filters it did not apply (its answer's `breakpoints`). */
function unverifiedMessages(answer: unknown): string[] {
  const breakpoints = (answer as { breakpoints?: unknown } | undefined)?.breakpoints;
  if (!Array.isArray(breakpoints)) return [];
  const reasons = breakpoints
    .filter(
      (b): b is { verified: false; message?: string } =>
        (b as { verified?: unknown })?.verified === false,
    )
    .map((b) => b.message ?? 'a filter was not applied.');
  return [...new Set(reasons)];
}

function availableFilters(session: DebugSessionPort): string[] {
  return (session.exceptionFilters.offered ?? []).map((f) => f.filter);
}

/** An error naming the filters the session's debugger does not offer, if any. */
function refusedFilters(
  session: DebugSessionPort,
  filters: readonly ExceptionFilterEntry[],
): ToolResult | undefined {
  const offered = session.exceptionFilters.offered;
  if (offered !== undefined && offered.length === 0) {
    return error(
      'not-supported',
      `The debugger of session "${session.name}" offers no exception filters.`,
    );
  }
  const unknown = session.exceptionFilters.unknown(filters);
  if (unknown.length > 0) {
    return error(
      'invalid-arguments',
      `Unknown exception filter(s): ${unknown.join(', ')}. This debugger offers: ` +
        `${availableFilters(session).join(', ')}.`,
    );
  }
  const noCondition = session.exceptionFilters.refusedConditions(filters);
  if (noCondition.length === 0) return undefined;
  return error(
    'invalid-arguments',
    `The debugger of session "${session.name}" takes no condition for: ${noCondition.join(', ')}. ` +
      'Pass those filters as plain names.',
  );
}

/** For start_debugging: a luapanda configuration takes only the Lua filters (checked up front). */
export function checkStartFilters(
  type: string,
  filters: readonly ExceptionFilterEntry[] | undefined,
): ToolResult | undefined {
  if (filters === undefined || type !== 'luapanda') return undefined;
  const unknown = filters.map(filterName).filter((f) => !LUA_EXCEPTION_FILTERS.includes(f));
  if (unknown.length === 0) return undefined;
  return error(
    'invalid-arguments',
    `Unknown exception filter(s): ${unknown.join(', ')}. Lua offers: ${LUA_EXCEPTION_FILTERS.join(', ')}.`,
  );
}
