/**
 * The custom DAP request `luapanda/coroutines`: the program's coroutines as the runtime knows
 * them, while stopped. Arguments `{max?}` (default 20); the response body is the session's
 * `CoroutineList`. The MCP tool get_debug_state sends it; any DAP client may.
 */
import { z } from 'zod';
import { MAX_COROUTINES, SessionError } from '../session';

export const COROUTINES_REQUEST = 'luapanda/coroutines';
export const DEFAULT_COROUTINES = 20;

export const coroutinesArgumentsSchema = z.object({
  max: z.number().int().min(0).max(MAX_COROUTINES).optional(),
});

export function parseCoroutinesArguments(args: unknown): number {
  const parsed = coroutinesArgumentsSchema.safeParse(args ?? {});
  if (!parsed.success) {
    throw new SessionError(
      'invalid-arguments',
      `Invalid ${COROUTINES_REQUEST} arguments: expected {"max": 0…${MAX_COROUTINES}}.`,
    );
  }
  return parsed.data.max ?? DEFAULT_COROUTINES;
}
