/**
 * The custom DAP request `luapanda/changes`: what changed in the top frame since the last stop
 * in the same function (locals, upvalues, fields of `self`), as `{changes: [{scope, name, old,
 * new}]}`. No arguments. The MCP stop data sends it; any DAP client may. The Variables view shows
 * the same changes on the values themselves (`dapVariable` in translate.ts).
 */
import type { ValueChange } from '../session';

export const CHANGES_REQUEST = 'luapanda/changes';

export interface ChangesResponseBody {
  readonly changes: readonly ValueChange[];
}

/** The attribute a changed value carries in `presentationHint.attributes`. */
export const CHANGED_ATTRIBUTE = 'changed';

/** `12  (was 10)`: a changed value as the Variables view shows it. */
export function changedValueText(value: string, previous: string): string {
  return `${value}  (was ${previous})`;
}
