/**
 * The custom DAP event `luapandaEnded`, sent just before `terminated`: why the session ended, and
 * the catalogue code of the error when one ended it (a failed start, a lost link). DAP's own
 * `exited`/`terminated` carry no reason; the MCP tools read this one to tell an agent "completed"
 * from "error", and to name a signal that killed the program. Clients that do not know it ignore
 * it. The schema checks the body where it is read.
 */
import { z } from 'zod';

export const ENDED_EVENT = 'luapandaEnded';

export const endedEventBodySchema = z.object({
  reason: z.string(),
  error: z.object({ code: z.string(), id: z.number() }).optional(),
});

export type EndedEventBody = z.infer<typeof endedEventBodySchema>;
