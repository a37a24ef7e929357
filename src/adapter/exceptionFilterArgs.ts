/**
 * DAP `setExceptionBreakpoints` arguments as the session model takes them: `filters` (names) and
 * `filterOptions` (a name with a condition on the error message), and the response's
 * `breakpoints`, one per element of both lists in that order (as DAP asks).
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import {
  EXCEPTION_FILTER_NAMES,
  ExceptionFilter,
  ExceptionFilterResult,
  ExceptionFilterSpec,
} from '../session';

const isLuaFilter = (name: string): name is ExceptionFilter =>
  (EXCEPTION_FILTER_NAMES as readonly string[]).includes(name);

/** What each element of the arguments asks for (undefined: a filter Lua does not have). */
export function exceptionFilterRequests(
  args: DebugProtocol.SetExceptionBreakpointsArguments,
): (ExceptionFilterSpec | undefined)[] {
  const named = (args.filters ?? []).map((name) =>
    isLuaFilter(name) ? { filter: name } : undefined,
  );
  const withOptions = (args.filterOptions ?? []).map((option) =>
    isLuaFilter(option.filterId)
      ? { filter: option.filterId, ...(option.condition ? { condition: option.condition } : {}) }
      : undefined,
  );
  return [...named, ...withOptions];
}

/** The response's `breakpoints`: `results` for the known filters, in the requests' order. */
export function exceptionFilterBreakpoints(
  requests: readonly (ExceptionFilterSpec | undefined)[],
  results: readonly ExceptionFilterResult[],
): DebugProtocol.Breakpoint[] {
  let next = 0;
  return requests.map((request) => {
    if (!request) return { verified: false, message: 'Lua has no such exception filter.' };
    const result = results[next++];
    return { verified: result.verified, ...(result.message ? { message: result.message } : {}) };
  });
}
