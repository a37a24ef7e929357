/**
 * The function breakpoints of a session (`Entity:update`, `util.helper`, `tick`): their ids (from
 * the same sequence as line breakpoints, so `hitBreakpointIds` never mixes them up), the checks
 * made when they are set, the `setFunctionBreakPoint` list for the wire, and what the runtime says
 * back — where each bound, or why not yet — in its reply and in `functionBreakpointsBound`.
 */
import type { FunctionBreakpointResult, IdeRequestInfo } from '../../protocol';
import { checkBreakpoint } from './breakpointChecks';
import { NOT_CONNECTED_MESSAGE } from './breakpointView';

export interface FunctionBreakpointSpec {
  /** The function as Lua source names it: `Entity:update`, `util.helper`, `tick`. */
  readonly name: string;
  readonly condition?: string;
  readonly hitCondition?: string;
  readonly logMessage?: string;
}

export interface FunctionBreakpoint extends FunctionBreakpointSpec {
  readonly id: number;
  readonly verified: boolean;
  /** Why it is not verified (or a note: it denotes several functions). */
  readonly message?: string;
  /** Where it bound: the workspace file and the function's first line. */
  readonly path?: string;
  readonly line?: number;
}

export const NO_FUNCTION_BREAKPOINTS_MESSAGE =
  'This Lua runtime does not support function breakpoints (upstream LuaPanda.lua): use a line breakpoint.';

interface Entry {
  readonly spec: FunctionBreakpointSpec;
  state: Omit<FunctionBreakpoint, keyof FunctionBreakpointSpec | 'id'>;
  readonly id: number;
  /** A check failed when it was set: it is never sent. */
  readonly invalid?: string;
}

/** A definition site as the wire carries it (`path` as `setBreakPoint` names the file). */
export interface WireSite {
  readonly path: string;
  readonly first: number;
  readonly last: number;
  readonly line: number;
}

/** Maps a runtime's chunk (`file`, `oPath` as stack frames give them) to a workspace path. */
export type ChunkResolver = (chunk: { file: string; oPath?: string }) => string | undefined;

export class FunctionBreakpointStore {
  private entries: Entry[] = [];
  /** The entries in the order of the last list sent. */
  private sent: Entry[] = [];

  constructor(private readonly newId: () => number) {}

  /** Replaces every function breakpoint; an unchanged one keeps its id. */
  set(specs: readonly FunctionBreakpointSpec[]): FunctionBreakpoint[] {
    const unused = [...this.entries];
    this.entries = specs.map((spec) => {
      const reuse = unused.findIndex((e) => e.spec.name.trim() === spec.name.trim());
      const old = reuse >= 0 ? unused.splice(reuse, 1)[0] : undefined;
      const invalid = checkBreakpoint(spec);
      return {
        spec,
        id: old?.id ?? this.newId(),
        invalid,
        state: invalid
          ? { verified: false, message: invalid }
          : { verified: false, message: NOT_CONNECTED_MESSAGE },
      };
    });
    this.sent = [];
    return this.all();
  }

  all(): FunctionBreakpoint[] {
    return this.entries.map((e) => ({ ...e.spec, id: e.id, ...e.state }));
  }

  get size(): number {
    return this.entries.length;
  }

  /** The names of the breakpoints whose checks passed (the ones a list carries). */
  names(): string[] {
    return this.entries.filter((e) => e.invalid === undefined).map((e) => e.spec.name);
  }

  /**
   * The `setFunctionBreakPoint` list: every breakpoint whose checks passed, with the definition
   * sites the sources give its name (`sitesOf`, paths as the wire carries them).
   */
  wireList(
    sitesOf: (name: string) => readonly WireSite[] = () => [],
  ): IdeRequestInfo<'setFunctionBreakPoint'> {
    this.sent = this.entries.filter((e) => e.invalid === undefined);
    return {
      names: this.sent.map(({ spec }) => {
        const sites = sitesOf(spec.name);
        return {
          name: spec.name,
          ...(spec.condition ? { condition: spec.condition } : {}),
          ...(spec.hitCondition ? { hitCondition: spec.hitCondition } : {}),
          ...(spec.logMessage ? { logMessage: spec.logMessage } : {}),
          ...(sites.length > 0 ? { sites: [...sites] } : {}),
        };
      }),
    };
  }

  /** The runtime's answer, one result per name sent, in order. Returns what changed. */
  applyResults(
    results: readonly FunctionBreakpointResult[],
    resolve: ChunkResolver,
  ): FunctionBreakpoint[] {
    return this.update((entry) => {
      const index = this.sent.indexOf(entry);
      if (index < 0) return undefined;
      const result = results[index];
      return result
        ? stateOf(result, resolve)
        : { verified: false, message: 'The Lua side did not answer for it.' };
    });
  }

  /** `functionBreakpointsBound`: names that bound once their code loaded. Returns what changed. */
  applyBound(
    results: readonly FunctionBreakpointResult[],
    resolve: ChunkResolver,
  ): FunctionBreakpoint[] {
    const remaining = [...results];
    return this.update((entry) => {
      if (!this.sent.includes(entry) || entry.state.verified) return undefined;
      const index = remaining.findIndex((r) => r.name === entry.spec.name);
      if (index < 0) return undefined;
      return stateOf(remaining.splice(index, 1)[0], resolve);
    });
  }

  /** The runtime cannot take them, or did not answer: each says why. */
  applyFailure(message: string): FunctionBreakpoint[] {
    return this.update((entry) =>
      entry.invalid === undefined ? { verified: false, message } : undefined,
    );
  }

  /** No program is connected any more. */
  markUnbound(): FunctionBreakpoint[] {
    this.sent = [];
    return this.update((entry) =>
      entry.invalid === undefined ? { verified: false, message: NOT_CONNECTED_MESSAGE } : undefined,
    );
  }

  /** Ids of the breakpoints a stop names in `hitFunctions`. */
  idsFor(names: readonly string[]): number[] {
    return this.sent.filter((e) => names.includes(e.spec.name)).map((e) => e.id);
  }

  private update(change: (entry: Entry) => Entry['state'] | undefined): FunctionBreakpoint[] {
    const changed: FunctionBreakpoint[] = [];
    for (const entry of this.entries) {
      const next = change(entry);
      if (!next || JSON.stringify(next) === JSON.stringify(entry.state)) continue;
      entry.state = next;
      changed.push({ ...entry.spec, id: entry.id, ...entry.state });
    }
    return changed;
  }
}

function stateOf(result: FunctionBreakpointResult, resolve: ChunkResolver): Entry['state'] {
  const path =
    result.file !== undefined ? resolve({ file: result.file, oPath: result.oPath }) : undefined;
  return {
    verified: result.verified,
    ...(result.message !== undefined ? { message: result.message } : {}),
    ...(path !== undefined ? { path } : {}),
    ...(result.line !== undefined ? { line: result.line } : {}),
  };
}
