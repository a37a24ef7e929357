/**
 * The changes of a stop as a list (for the MCP stop data): reads the top frame's locals and
 * upvalues, and the fields of a small `self`, through the session's own listings, which note
 * every value in the change memory, then reports what the memory found. A `self` with more
 * fields than one short page is not read: this is a glance, never a walk of a big table; when
 * its fields are read, they stand for it (`self` itself is not listed beside them).
 */
import type { ValueChange } from './changeMemory';
import type { Scope, Variable } from '../types';
import type { Page } from './variables';

/** A `self` with more fields than this is not listed for the change list. */
export const MAX_SELF_FIELDS = 64;

export interface ChangeReader {
  scopes(): readonly Scope[];
  list(variablesReference: number, page: Page): Promise<Variable[]>;
  /** Whether a value's children can be read one page at a time (runtime feature `paging`). */
  readonly paging: boolean;
  changed(): ValueChange[];
}

export async function readStopChanges(reader: ChangeReader): Promise<ValueChange[]> {
  const scopes = reader.scopes().filter((s) => s.kind === 'locals' || s.kind === 'upvalues');
  const listings = await Promise.all(scopes.map((s) => reader.list(s.variablesReference, {})));
  const self = listings.flat().find((v) => v.name === 'self' && v.variablesReference > 0);
  if (self && reader.paging && (self.childCount ?? MAX_SELF_FIELDS + 1) <= MAX_SELF_FIELDS) {
    await reader.list(self.variablesReference, { start: 0, count: MAX_SELF_FIELDS });
    // Its fields say what changed in it, shorter than its whole preview before and after.
    return reader.changed().filter((c) => c.scope === 'self' || c.name !== 'self');
  }
  return reader.changed();
}
