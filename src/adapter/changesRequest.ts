/**
 * The custom DAP request `luapanda/changes`: what changed in the top frame since the last stop
 * in the same function (locals, upvalues, fields of `self`), as `{changes: [{scope, name, old,
 * new}]}`. No arguments. The MCP stop data sends it; any DAP client may. The Variables view shows
 * the same changes on the values themselves (`dapVariable` in translate.ts), and a Set Value
 * that starts from such a value loses the suffix again.
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

/**
 * A variable's value without the Variables view's `  (was …)`: what an agent reads (MCP inside
 * VS Code sees the view's values; its stop data says what changed in `changed` instead).
 */
export function plainValueOf(variable: {
  readonly value: string;
  readonly presentationHint?: { readonly attributes?: readonly string[] };
}): string {
  return variable.presentationHint?.attributes?.includes(CHANGED_ATTRIBUTE)
    ? withoutChangedSuffix(variable.value)
    : variable.value;
}

/**
 * A Set Value text without the `  (was …)` the editor started from: VS Code fills the box with
 * the shown value, so an edited number arrives as `40  (was 2)`. Only the exact suffix goes.
 */
export function withoutChangedSuffix(text: string): string {
  const at = text.lastIndexOf('  (was ');
  return at > 0 && text.endsWith(')') ? text.slice(0, at) : text;
}
