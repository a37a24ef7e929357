/**
 * The program's coroutines for get_debug_state when it is paused: status, where each suspended
 * (or resuming) one stands — file:line and function — and that line as its preview. Asked of our
 * adapter with `luapanda/coroutines`; another debugger, or a runtime without the feature, gives
 * none and the result leaves them out. Capped at MAX_LISTED, with the count of the rest.
 */
import path from 'node:path';
import { z } from 'zod';
import { COROUTINES_REQUEST } from '../../adapter/coroutinesRequest';
import type { CoroutineList } from '../../session';
import type { DebugSessionPort } from '../channel';
import { count } from '../schemaIds';

export const MAX_LISTED = 12;

/** What the runtime can know of: said in every list, since a game's older coroutines may miss. */
export const COROUTINES_KNOWN =
  'coroutines created or resumed since the debugger attached, and (not LuaJIT) those it found ' +
  'reachable at attach; the main thread is not listed';

export const coroutinesViewSchema = z.object({
  listed: z.array(
    z.object({
      id: z.string(),
      status: z.string(),
      wrap: z.boolean().optional(),
      at: z.string().optional(),
      function_name: z.string().optional(),
      preview: z.string().optional(),
    }),
  ),
  total: count(),
  not_listed: count().optional(),
  known: z.string(),
});
export type CoroutinesView = z.infer<typeof coroutinesViewSchema>;

/** The coroutines of a paused session, or undefined when its debugger cannot list them. */
export async function readCoroutines(
  session: DebugSessionPort,
): Promise<CoroutinesView | undefined> {
  if (session.type !== 'luapanda') return undefined;
  let list: CoroutineList;
  try {
    list = (await session.customRequest(COROUTINES_REQUEST, { max: MAX_LISTED })) as CoroutineList;
  } catch {
    return undefined;
  }
  const listed = list.coroutines.slice(0, MAX_LISTED).map((c) => {
    const file = c.path ?? c.chunk;
    return {
      id: c.id.replace(/^thread: /, ''),
      status: c.status,
      ...(c.wrap ? { wrap: true } : {}),
      ...(file !== undefined && c.line !== undefined
        ? { at: `${path.basename(file)}:${c.line}` }
        : {}),
      ...(c.functionName ? { function_name: c.functionName } : {}),
      ...(c.preview ? { preview: c.preview } : {}),
    };
  });
  const rest = list.total - listed.length;
  return {
    listed,
    total: list.total,
    ...(rest > 0 ? { not_listed: rest } : {}),
    known: COROUTINES_KNOWN,
  };
}
