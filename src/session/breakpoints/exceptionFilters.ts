/**
 * The exception filters a client asks for, as the Lua side is told them: each filter on its own,
 * or with a condition on the error message — plain text the message must contain, tested by the
 * runtime before it stops (feature `exceptionConditions`), so an error that does not match costs
 * no round trip. A filter asked for both with and without a condition stops on every error of its
 * kind; several conditions of one filter stop when any matches. A runtime without the feature
 * (an older LuaPanda.lua) gets no conditional filter at all: stopping on every error instead
 * would flood the user, so that filter is off and the result says why.
 */
import type { IdeRequestInfo } from '../../protocol';

export type ExceptionFilter = 'uncaught' | 'caught' | 'assert';

export const EXCEPTION_FILTER_NAMES: readonly ExceptionFilter[] = ['uncaught', 'caught', 'assert'];

export interface ExceptionFilterSpec {
  readonly filter: ExceptionFilter;
  /** Text the error message must contain; empty or absent: every error of the kind. */
  readonly condition?: string;
}

export interface ExceptionFilterResult {
  readonly verified: boolean;
  readonly message?: string;
}

export const CONDITIONS_UNSUPPORTED =
  "The game's LuaPanda.lua cannot test an exception filter's condition (it predates the " +
  'feature): the filter with a condition is off. Copy the current LuaPanda.lua into the game ' +
  '(command "LuaPanda: Copy LuaPanda.lua into the Workspace").';

export interface ExceptionFilterWire {
  /** What `setExceptionBreakpoints` sends. */
  readonly info: IdeRequestInfo<'setExceptionBreakpoints'>;
  /** One per spec, in order. */
  readonly results: ExceptionFilterResult[];
}

/**
 * The wire form of `specs` for a runtime with `features` (undefined: not known yet — every spec
 * is taken as it is, and checked again once the runtime has said).
 */
export function exceptionFilterWire(
  specs: readonly ExceptionFilterSpec[],
  features: ReadonlySet<string> | undefined,
): ExceptionFilterWire {
  const canCondition = features === undefined || features.has('exceptionConditions');
  const plain = new Set(specs.filter((s) => !s.condition).map((s) => s.filter));
  const conditions: Partial<Record<ExceptionFilter, string[]>> = {};
  const results = specs.map((spec): ExceptionFilterResult => {
    if (!spec.condition || plain.has(spec.filter)) return { verified: true };
    if (!canCondition) return { verified: false, message: CONDITIONS_UNSUPPORTED };
    (conditions[spec.filter] ??= []).push(spec.condition);
    return { verified: true };
  });
  const filters = EXCEPTION_FILTER_NAMES.filter(
    (name) => plain.has(name) || conditions[name] !== undefined,
  );
  const hasConditions = Object.keys(conditions).length > 0;
  return { info: hasConditions ? { filters, conditions } : { filters }, results };
}
