/**
 * The exception filters of one debug session as its debugger was last told them, whoever told it
 * (the VS Code UI, the start-up sequence or an agent), and the filters it offers. Each channel
 * feeds it the DAP traffic it sees, so `get_debug_state` reports what is in effect, not what an
 * agent last asked for.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';

export class ExceptionFilterState {
  private offeredFilters: DebugProtocol.ExceptionBreakpointsFilter[] | undefined;
  private activeFilters: string[] | undefined;

  /** What the debugger offers (its `initialize` answer), once known. */
  get offered(): readonly DebugProtocol.ExceptionBreakpointsFilter[] | undefined {
    return this.offeredFilters;
  }

  /** The filters last sent to the debugger, once any were. */
  get active(): readonly string[] | undefined {
    return this.activeFilters;
  }

  noteCapabilities(capabilities: DebugProtocol.Capabilities | undefined): void {
    this.offeredFilters = capabilities?.exceptionBreakpointFilters ?? this.offeredFilters ?? [];
  }

  /** Notes a request sent to the debugger; only `setExceptionBreakpoints` matters here. */
  noteRequest(command: string, args: unknown): void {
    if (command !== 'setExceptionBreakpoints') return;
    const filters = (args as DebugProtocol.SetExceptionBreakpointsArguments | undefined)?.filters;
    if (Array.isArray(filters)) this.activeFilters = filters.filter((f) => typeof f === 'string');
  }

  /** The names among `filters` the debugger does not offer (none while its offer is unknown). */
  unknown(filters: readonly string[]): string[] {
    const offered = this.offeredFilters;
    if (offered === undefined) return [];
    return filters.filter((name) => !offered.some((f) => f.filter === name));
  }

  /** The filters the debugger applies by default (what VS Code starts with). */
  defaults(): string[] {
    return (this.offeredFilters ?? []).filter((f) => f.default === true).map((f) => f.filter);
  }
}
