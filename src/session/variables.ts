/**
 * Variable handles and listings of one stop. Scopes and expandable values get handles from a
 * `HandleTable` (forgotten when the program moves); the Lua side's own references (scope ids
 * 10000/20000/30000, object refs below 10000) stay inside. Listings are paged by the runtime
 * when it can (feature `paging`); otherwise the whole list is fetched once per stop, tidied
 * (variableOrder.ts) and sliced.
 */
import type { LuaVariable } from '../protocol';
import { SessionError } from './errors';
import { HandleTable } from './handles';
import type { Frame, Scope, ScopeKind, Variable } from './types';
import { tidyListing } from './variableOrder';

export type Container =
  | { readonly kind: 'scope'; readonly scope: ScopeKind; readonly frame: Frame }
  | {
      readonly kind: 'value';
      readonly luaRef: number;
      /** The frame the value was listed in, as the Lua side's `stackId`. */
      readonly stackId: string;
      readonly evaluateName?: string;
    };

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
  private readonly fullLists = new Map<number, LuaVariable[]>();

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
      throw new SessionError(
        'invalid-reference',
        `Variable reference ${handle} is not valid: references last only until the program ` +
          'continues or steps. Get fresh ones from the current stop.',
      );
    }
    return container;
  }

  /** The Lua side's `varRef`/`stackId` for a container. */
  luaTarget(container: Container): { varRef: string; stackId: string } {
    return container.kind === 'scope'
      ? { varRef: String(SCOPE_REFS[container.scope]), stackId: String(container.frame.luaIndex) }
      : { varRef: String(container.luaRef), stackId: container.stackId };
  }

  async list(
    handle: number,
    page: Page,
    fetch: FetchVariables,
    options: { paging: boolean; pagingLimit: number },
  ): Promise<Variable[]> {
    const container = this.container(handle);
    const target = this.luaTarget(container);
    const start = Math.max(0, page.start ?? 0);
    let raw: LuaVariable[];
    if (options.paging) {
      const count = Math.min(page.count ?? options.pagingLimit, options.pagingLimit);
      raw = await fetch({ ...target, start, count });
    } else {
      let full = this.fullLists.get(handle);
      if (!full) {
        const kind = container.kind === 'scope' ? container.scope : 'children';
        full = tidyListing(kind, await fetch(target));
        this.fullLists.set(handle, full);
      }
      raw = full.slice(start, page.count !== undefined ? start + page.count : undefined);
    }
    return raw.map((v) => this.wrap(v, target.stackId));
  }

  /** A session variable for a Lua one; expandable values get a handle. */
  wrap(variable: LuaVariable, stackId: string): Variable {
    const luaRef = variable.variablesReference;
    const variablesReference =
      luaRef > 0
        ? this.handles.create(
            { kind: 'value', luaRef, stackId, evaluateName: variable.evaluateName },
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
