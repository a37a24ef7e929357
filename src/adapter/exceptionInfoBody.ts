/**
 * The body of our `exceptionInfo` response: DAP's fields, plus `caughtAt` (an extension other
 * clients ignore) saying where the program called the pcall/xpcall that catches a caught error,
 * so that the MCP tools can tell an agent where an error is swallowed.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { z } from 'zod';
import type { StopInfo } from '../session';

export const caughtAtSchema = z.object({
  source: z.object({ path: z.string().optional(), name: z.string() }),
  line: z.number(),
});
export type CaughtAt = z.infer<typeof caughtAtSchema>;

export type LuaExceptionInfoBody = DebugProtocol.ExceptionInfoResponse['body'] & {
  caughtAt?: CaughtAt;
};

export function exceptionInfoBody(stop: StopInfo): LuaExceptionInfoBody {
  const at = stop.caughtAt;
  return {
    exceptionId: 'Lua error',
    description: stop.exceptionText,
    breakMode: stop.uncaught === false ? 'always' : 'unhandled',
    details: { message: stop.exceptionText },
    ...(at
      ? {
          caughtAt: {
            source: { path: at.path, name: (at.path ?? at.chunk).split(/[\\/]/).pop() ?? at.chunk },
            line: at.line,
          },
        }
      : {}),
  };
}
