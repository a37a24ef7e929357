/**
 * The exception filters of one debug session as its debugger was last told them, whoever told it
 * (the VS Code UI, the start-up sequence or an agent), and the filters it offers. Each channel
 * feeds it the DAP traffic it sees, so `get_debug_state` reports what is in effect, not what an
 * agent last asked for. A filter is a name, or a name with a condition (DAP `filterOptions`; for
 * Lua, text the error message must contain).
 */
import type { DebugProtocol } from '@vscode/debugprotocol';

/** One filter as the tools take and show it: `"caught"`, or `{filter: "caught", condition}`. */
export type ExceptionFilterEntry = string | { filter: string; condition: string };

export const filterName = (entry: ExceptionFilterEntry): string =>
  typeof entry === 'string' ? entry : entry.filter;

/** The DAP arguments that set `entries`: names in `filters`, conditions in `filterOptions`. */
export function exceptionBreakpointsArgs(
  entries: readonly ExceptionFilterEntry[],
): DebugProtocol.SetExceptionBreakpointsArguments {
  const filters = entries.filter((e): e is string => typeof e === 'string');
  const filterOptions = entries
    .filter((e): e is Exclude<ExceptionFilterEntry, string> => typeof e !== 'string')
    .map((e) => ({ filterId: e.filter, condition: e.condition }));
  return filterOptions.length > 0 ? { filters, filterOptions } : { filters };
}

/** The entries a `setExceptionBreakpoints` request sets. */
function entriesOf(args: DebugProtocol.SetExceptionBreakpointsArguments): ExceptionFilterEntry[] {
  const named = Array.isArray(args.filters)
    ? args.filters.filter((f) => typeof f === 'string')
    : [];
  const options = Array.isArray(args.filterOptions) ? args.filterOptions : [];
  return [
    ...named,
    ...options.map((o) =>
      o.condition ? { filter: o.filterId, condition: o.condition } : o.filterId,
    ),
  ];
}

export class ExceptionFilterState {
  private offeredFilters: DebugProtocol.ExceptionBreakpointsFilter[] | undefined;
  private activeFilters: ExceptionFilterEntry[] | undefined;
  private takesOptions = false;

  /** What the debugger offers (its `initialize` answer), once known. */
  get offered(): readonly DebugProtocol.ExceptionBreakpointsFilter[] | undefined {
    return this.offeredFilters;
  }

  /** The filters last sent to the debugger, once any were. */
  get active(): readonly ExceptionFilterEntry[] | undefined {
    return this.activeFilters;
  }

  noteCapabilities(capabilities: DebugProtocol.Capabilities | undefined): void {
    this.offeredFilters = capabilities?.exceptionBreakpointFilters ?? this.offeredFilters ?? [];
    this.takesOptions = capabilities?.supportsExceptionFilterOptions === true;
  }

  /** Notes a request sent to the debugger; only `setExceptionBreakpoints` matters here. */
  noteRequest(command: string, args: unknown): void {
    if (command !== 'setExceptionBreakpoints' || typeof args !== 'object' || args === null) return;
    this.activeFilters = entriesOf(args as DebugProtocol.SetExceptionBreakpointsArguments);
  }

  /** The names among `entries` the debugger does not offer (none while its offer is unknown). */
  unknown(entries: readonly ExceptionFilterEntry[]): string[] {
    const offered = this.offeredFilters;
    if (offered === undefined) return [];
    return entries.map(filterName).filter((name) => !offered.some((f) => f.filter === name));
  }

  /** The names among `entries` given a condition that the debugger takes none for. */
  refusedConditions(entries: readonly ExceptionFilterEntry[]): string[] {
    const offered = this.offeredFilters;
    if (offered === undefined) return [];
    return entries
      .filter((e) => typeof e !== 'string')
      .map(filterName)
      .filter(
        (name) =>
          !this.takesOptions || !offered.some((f) => f.filter === name && f.supportsCondition),
      );
  }

  /** The filters the debugger applies by default (what VS Code starts with). */
  defaults(): string[] {
    return (this.offeredFilters ?? []).filter((f) => f.default === true).map((f) => f.filter);
  }
}
