/**
 * What a breakpoint looks like to the user — its line, whether it is verified, and the message
 * that says why not (or where it moved) — worked out from everything known about it: the checks
 * of its condition, where the source analysis binds it, whether a program is connected, the
 * runtime's verdict, whether its file is loaded, and where the runtime bound it.
 */
import type { LineBinding } from '../lines/breakpointLines';

export const NOT_CONNECTED_MESSAGE =
  'Not bound yet: it is sent to the Lua program when one is connected.';

export const NOT_LOADED_MESSAGE =
  'Not loaded yet: it binds when the Lua program loads this file (or runs code of it).';

export const NO_HIT_CONDITIONS_MESSAGE =
  'This Lua runtime does not support hit conditions (upstream LuaPanda).';

/** Everything known about one breakpoint. */
export interface BreakpointFacts {
  /** The line the user asked for. */
  readonly requested: number;
  /** Why it can never work as written (its condition does not parse…): never sent. */
  readonly invalid?: string;
  /** Where the source analysis binds it (undefined: no analysis was asked for). */
  readonly binding?: LineBinding;
  /** The runtime's verdict, once it answered; or why it could not be sent. */
  readonly runtime?: { readonly verified: boolean; readonly message?: string };
  /** Where the runtime bound it when its function was first seen (0: nowhere). */
  readonly bound?: number;
  /** The runtime reported that its condition failed (it counts as false). */
  readonly conditionError?: string;
}

export interface FileFacts {
  readonly connected: boolean;
  /** Whether code of the file has run yet; undefined when the runtime does not say. */
  readonly loaded?: boolean;
}

export interface BreakpointLook {
  readonly line: number;
  readonly verified: boolean;
  readonly message?: string;
}

/** The line it is sent to the runtime on: where the analysis binds it. */
export function sentLine(facts: BreakpointFacts): number {
  return facts.binding?.kind === 'code' ? facts.binding.line : facts.requested;
}

export function lookOf(facts: BreakpointFacts, file: FileFacts): BreakpointLook {
  const { binding, runtime, bound } = facts;
  const sent = sentLine(facts);
  const line = bound !== undefined && bound > 0 ? bound : sent;
  const unverified = (message: string): BreakpointLook => ({ line, verified: false, message });
  if (facts.invalid) return unverified(facts.invalid);
  if (binding?.kind === 'none') return unverified(binding.message);
  const notes = [movedNote(facts, line), binding?.kind === 'unchecked' ? binding.message : '']
    .filter((n) => n !== '')
    .join(' ');
  const withNotes = (message: string) => (notes ? `${message} ${notes}` : message);
  if (!file.connected) return unverified(withNotes(NOT_CONNECTED_MESSAGE));
  if (!runtime) return unverified(withNotes(NOT_CONNECTED_MESSAGE));
  if (!runtime.verified) return unverified(runtime.message ?? 'The Lua side rejected it.');
  if (bound === 0) {
    return unverified(
      `The loaded code has no line with code at or after line ${facts.requested} in the ` +
        'function this line belongs to (the file on disk may differ from what the program loaded).',
    );
  }
  if (file.loaded === false) return unverified(withNotes(NOT_LOADED_MESSAGE));
  const condition = facts.conditionError
    ? `Its condition failed: ${facts.conditionError}; it counts as false.`
    : '';
  const message = [notes, condition].filter((n) => n !== '').join(' ');
  return { line, verified: true, ...(message ? { message } : {}) };
}

/** "Moved from line 25 (`end`) to line 26 …", when it does not sit where it was asked for. */
function movedNote(facts: BreakpointFacts, line: number): string {
  const { binding } = facts;
  if (line === facts.requested) return '';
  if (binding?.kind === 'code' && binding.line === line && binding.moved) return binding.moved;
  return (
    `Moved from line ${facts.requested} to line ${line}: the loaded code's next line with code ` +
    '(the file on disk may differ from what the program loaded).'
  );
}
