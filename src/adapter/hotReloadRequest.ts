/**
 * The custom DAP request `luapanda/hotReload`: load a changed Lua file into the debugged program.
 * Arguments `{path, source?}` (the editor's text, or the file on disk when absent); the response
 * body is the session's `HotReloadReport`. The VS Code command, reload on save and the MCP tool
 * send it; any DAP client may.
 */
import { z } from 'zod';
import { SessionError } from '../session';

export const HOT_RELOAD_REQUEST = 'luapanda/hotReload';

export const hotReloadArgumentsSchema = z.object({
  /** The file: absolute, or relative to the session's `cwd`. */
  path: z.string().min(1),
  /** Its new text; absent: read from disk. */
  source: z.string().optional(),
});

export type HotReloadArguments = z.infer<typeof hotReloadArgumentsSchema>;

/** The arguments, or a `SessionError` that says what is wrong with them. */
export function parseHotReloadArguments(args: unknown): HotReloadArguments {
  const parsed = hotReloadArgumentsSchema.safeParse(args ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `"${issue.path.join('.') || 'arguments'}": ${issue.message}`);
  throw new SessionError(
    'invalid-arguments',
    `Invalid ${HOT_RELOAD_REQUEST} arguments (${issues.join('; ')}); expected ` +
      '{"path": "<the Lua file>", "source": "<its new text, optional>"}.',
  );
}
