/**
 * The custom DAP event `luapandaWarning`: something about a breakpoint the user should hear of
 * once — its condition does not parse, the runtime rejected it, its condition failed at run time
 * (it counts as false), it binds nowhere. VS Code shows the breakpoint's own state; the MCP tools
 * put these in the next asynchronous result's `warnings`. Clients that do not know it ignore it.
 */
import { z } from 'zod';

export const WARNING_EVENT = 'luapandaWarning';

export const warningEventBodySchema = z.object({ text: z.string() });

export type WarningEventBody = z.infer<typeof warningEventBodySchema>;
