/**
 * Variable handles and listings of one stop. Scopes and expandable values get handles from a
 * `HandleTable` (forgotten when the program moves); the Lua side's own references (scope ids
 * 10000/20000/30000, object refs below 10000) stay inside. Listings are paged by the runtime
 * when it can (feature `paging`); otherwise the whole list is fetched once per stop, tidied
 * (variableOrder.ts) and sliced. A value with more than 100 children is listed as index ranges
 * (ranges.ts), each a container of its own.
 */
import type { LuaVariable } from '../../protocol';
import { sessionErrors } from '../errors';
import { HandleTable } from './handles';
import { RANGE_SIZE, rangesOf } from './ranges';
import type { Frame, Scope, ScopeKind, Variable } from '../types';
import { tidyListing } from './variableOrder';

export interface ValueContainer {
  readonly kind: 'value';
  readonly luaRef: number;
  /** The frame the value was listed in, as the Lua side's `stackId`. */
  readonly stackId: string;
  readonly evaluateName?: string;
  /** How many children the value has, when the runtime says (feature `paging`). */
  readonly childCount?: number;
}

/** A slice of a value's children: `count` of them from the 0-based `start`. */
export interface RangeContainer {
  readonly kind: 'range';
  readonly value: ValueContainer;
  readonly start: number;
  readonly count: number;
}

export type Container =
  | { readonly kind: 'scope'; readonly scope: ScopeKind; readonly frame: Frame }
  | ValueContainer
  | RangeContainer;

/** Upstream's scope pseudo-references (protocol doc 9.2). */
export const SCOPE_REFS: Readonly<Record<ScopeKind, number>> = {
  locals: 10000,
  globals: 20000,
  upvalues: 30000,
};

const SCOPE_NAMES: Readonly<Record<ScopeKind, string>> = {
  locals: 'Locals',
  upvalues: 'Upvalues',
  globals: 'Globals',
};

export interface Page {
  readonly start?: number;
  readonly count?: number;
}

/** Fetches one `getVariable` reply; the session binds it to its connection. */
export type FetchVariables = (info: {
  varRef: string;
  stackId: string;
  start?: number;
  count?: number;
}) => Promise<LuaVariable[]>;

export class VariableStore {
  private readonly handles = new HandleTable<Container>();
  /** Whole listings by Lua target (`varRef:stackId`), for runtimes that do not page. */
  private readonly fullLists = new Map<string, LuaVariable[]>();

  /** Forgets every handle and cached list (the program moved). */
  invalidate(): void {
    this.handles.invalidate();
    this.fullLists.clear();
  }

  /** Forgets cached lists only (something may have changed values, e.g. a REPL assignment). */
  forgetValues(): void {
    this.fullLists.clear();
  }

  scopes(frame: Frame): Scope[] {
    return (['locals', 'upvalues', 'globals'] as const).map((kind) => ({
      name: SCOPE_NAMES[kind],
      kind,
      variablesReference: this.handles.create(
        { kind: 'scope', scope: kind, frame },
        `scope:${frame.id}:${kind}`,
      ),
      // Globals list all of _G: clients fetch them only on demand.
      expensive: kind === 'globals',
    }));
  }

  container(handle: number): Container {
    const container = this.handles.get(handle);
    if (!container) {
      throw sessionErrors.invalidReference(handle);
    }
    return container;
  }

  /** The Lua side's `varRef`/`stackId` for a container (a range: its value's). */
  luaTarget(container: Container): { varRef: string; stackId: string } {
    if (container.kind === 'scope') {
      return {
        varRef: String(SCOPE_REFS[container.scope]),
        stackId: String(container.frame.luaIndex),
      };
    }
    const value = container.kind === 'range' ? container.value : container;
    return { varRef: String(value.luaRef), stackId: value.stackId };
  }

  async list(
    handle: number,
    page: Page,
    fetch: FetchVariables,
    options: { paging: boolean; pagingLimit: number },
  ): Promise<Variable[]> {
    const container = this.container(handle);
    const target = this.luaTarget(container);
    // The part of the full listing this container stands for (a range: its slice).
    const base = container.kind === 'range' ? container.start : 0;
    let total = container.kind === 'range' ? container.count : undefined;
    let full: LuaVariable[] | undefined;
    if (!options.paging) {
      full = await this.fullList(container, fetch);
      total ??= full.length;
    } else if (container.kind === 'value') {
      total = container.childCount;
    }
    // Asked for everything (no start, no count): a long listing comes as ranges.
    if (page.start === undefined && page.count === undefined && container.kind !== 'scope') {
      if (total !== undefined && total > RANGE_SIZE) return this.ranges(container, base, total);
    }
    const offset = Math.max(0, page.start ?? 0);
    const start = base + offset;
    let count = page.count ?? options.pagingLimit;
    if (total !== undefined) count = Math.min(count, Math.max(0, total - offset));
    let raw: LuaVariable[];
    if (full) {
      raw = full.slice(start, start + count);
    } else {
      count = Math.min(count, options.pagingLimit);
      raw = count > 0 ? await fetch({ ...target, start, count }) : [];
    }
    return raw.map((v) => this.wrap(v, target.stackId));
  }

  /** The whole listing of a container, fetched once per stop and tidied (runtimes that do not page). */
  private async fullList(container: Container, fetch: FetchVariables): Promise<LuaVariable[]> {
    const owner = container.kind === 'range' ? container.value : container;
    const key = this.luaTarget(owner).varRef + ':' + this.luaTarget(owner).stackId;
    let full = this.fullLists.get(key);
    if (!full) {
      const kind = owner.kind === 'scope' ? owner.scope : 'children';
      full = tidyListing(kind, await fetch(this.luaTarget(owner)));
      this.fullLists.set(key, full);
    }
    return full;
  }

  /** `[1..100]`, `[101..200]`…: one expandable entry per range of `count` children from `start`. */
  private ranges(
    container: ValueContainer | RangeContainer,
    start: number,
    count: number,
  ): Variable[] {
    const value = container.kind === 'range' ? container.value : container;
    return rangesOf(start, count).map((range) => ({
      name: range.label,
      value: '',
      type: '',
      variablesReference: this.handles.create(
        { kind: 'range', value, start: range.start, count: range.count },
        `range:${value.luaRef}:${range.start}:${range.count}`,
      ),
      presentationHint: 'virtual',
    }));
  }

  /** A session variable for a Lua one; expandable values get a handle. */
  wrap(variable: LuaVariable, stackId: string): Variable {
    const luaRef = variable.variablesReference;
    const variablesReference =
      luaRef > 0
        ? this.handles.create(
            {
              kind: 'value',
              luaRef,
              stackId,
              evaluateName: variable.evaluateName,
              childCount: variable.childCount,
            },
            `value:${luaRef}`,
          )
        : 0;
    return {
      name: variable.name,
      value: variable.value,
      type: variable.type,
      variablesReference,
      childCount: variable.childCount,
      evaluateName: variable.evaluateName,
    };
  }
}
