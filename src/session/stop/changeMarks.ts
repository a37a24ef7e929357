/**
 * Marks the values of a listing that changed since the last stop in the same function
 * (changeMemory.ts): the top frame's locals and upvalues, and the fields of its `self`. Other
 * frames and deeper values are left alone: only the stopped function has a "last time" that a
 * user compares with, and its own listings are already fetched, so marking costs no request.
 */
import type { ChangeMemory, ChangeScope } from './changeMemory';
import type { Frame, Variable } from '../types';
import type { Container } from './variables';

/** The memory's key of a frame's function: its chunk and definition line (or name, upstream). */
export function functionKey(frame: Frame | undefined): string | undefined {
  if (!frame) return undefined;
  return `${frame.chunk}:${frame.defined !== undefined ? String(frame.defined) : frame.name}`;
}

/** Which remembered scope a listing is, if any. */
export function changeScopeOf(
  container: Container,
  top: Frame | undefined,
): ChangeScope | undefined {
  if (!top) return undefined;
  if (container.kind === 'scope') {
    if (container.frame.id !== top.id) return undefined;
    if (container.scope === 'locals') return 'local';
    if (container.scope === 'upvalues') return 'upvalue';
    return undefined;
  }
  if (container.kind === 'value' && container.evaluateName === 'self') {
    return container.stackId === String(top.luaIndex) ? 'self' : undefined;
  }
  return undefined;
}

/** The listing with `previous` set on each value that changed; every value is noted. */
export function markChanges(
  memory: ChangeMemory,
  scope: ChangeScope | undefined,
  variables: readonly Variable[],
): Variable[] {
  if (scope === undefined) return [...variables];
  return variables.map((variable) => {
    if (variable.presentationHint === 'virtual') return variable;
    const previous = memory.note(scope, variable.name, variable.value);
    return previous === undefined ? variable : { ...variable, previous };
  });
}
