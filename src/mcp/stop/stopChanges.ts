/**
 * The `changed` list of `stop_event_data`: the top frame's locals, upvalues and `self` fields
 * whose value differs from the last stop in the same function, each with its old and new preview
 * (the session's change memory, asked for with the adapter's `luapanda/changes` request). Absent
 * when nothing changed, at a first stop, and for debuggers that do not answer the request.
 */
import { z } from 'zod';
import { CHANGES_REQUEST, type ChangesResponseBody } from '../../adapter/changesRequest';
import type { DebugSessionPort } from '../channel';
import { shorten } from './stopScopes';

/** Changes listed at most (the top frame's most telling ones come first: locals, then the rest). */
export const MAX_CHANGES = 12;
/** An old or new preview in the list is cut here. */
export const CHANGE_VALUE_CHARS = 60;

export const changeSchema = z.object({
  name: z.string(),
  old: z.string(),
  new: z.string(),
});
export type ChangeView = z.infer<typeof changeSchema>;

export async function readChanges(session: DebugSessionPort): Promise<ChangeView[] | undefined> {
  if (session.type !== 'luapanda') return undefined;
  let body: ChangesResponseBody;
  try {
    body = (await session.customRequest(CHANGES_REQUEST)) as ChangesResponseBody;
  } catch {
    // An older adapter, or the program moved on: the stop data goes without.
    return undefined;
  }
  const changes = body.changes ?? [];
  if (changes.length === 0) return undefined;
  return changes.slice(0, MAX_CHANGES).map((change) => ({
    name: change.scope === 'upvalue' ? `${change.name} (upvalue)` : change.name,
    old: shorten(change.old, CHANGE_VALUE_CHARS).value,
    new: shorten(change.new, CHANGE_VALUE_CHARS).value,
  }));
}

/** The stop data with its changes' previews cut to `max` characters; undefined when none is longer. */
export function withChangesCut<T extends { changed?: ChangeView[] }>(
  data: T,
  max: number,
): T | undefined {
  const changed = data.changed;
  if (!changed?.some((c) => c.old.length > max + 1 || c.new.length > max + 1)) return undefined;
  const cut = (text: string): string => (text.length > max + 1 ? `${text.slice(0, max)}…` : text);
  return { ...data, changed: changed.map((c) => ({ ...c, old: cut(c.old), new: cut(c.new) })) };
}

/** The stop data with half its changes (never fewer than `floor`); undefined when at the floor. */
export function withChangesHalved<T extends { changed?: ChangeView[] }>(
  data: T,
  floor: number,
): T | undefined {
  const changed = data.changed;
  if (!changed || changed.length <= floor) return undefined;
  return { ...data, changed: changed.slice(0, Math.max(floor, Math.floor(changed.length / 2))) };
}
