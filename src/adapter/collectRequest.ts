/**
 * The custom DAP request `luapanda/collect`: collect the values of expressions at a line over many
 * hits without stopping the program. Arguments `{path, line, expressions, condition?, hitLimit?,
 * timeoutSeconds?}`; the response comes when the hit limit is reached, the timeout passed or the
 * session ended, its body the session's `CollectReport`. The MCP tool `collect_values` sends it.
 */
import { z } from 'zod';
import { SessionError } from '../session';

export const COLLECT_REQUEST = 'luapanda/collect';

/** Hits collected when the request names no limit, and the most it may ask for. */
export const COLLECT_DEFAULT_HITS = 20;
export const COLLECT_MAX_HITS = 200;
/** Seconds waited when the request names no timeout, and the most it may ask for. */
export const COLLECT_DEFAULT_SECONDS = 30;
export const COLLECT_MAX_SECONDS = 600;
/** Expressions per request at most (the runtime's limit too). */
export const COLLECT_MAX_EXPRESSIONS = 10;

export const collectArgumentsSchema = z.object({
  /** The file: absolute, or relative to the session's `cwd`; or `functionName` instead. */
  path: z.string().min(1).optional(),
  line: z.number().int().min(1).optional(),
  /** A function as Lua source names it (`Entity:update`): its first line with code. */
  functionName: z.string().trim().min(1).optional(),
  expressions: z.array(z.string().trim().min(1)).min(1).max(COLLECT_MAX_EXPRESSIONS),
  condition: z.string().optional(),
  hitLimit: z.number().int().min(1).max(COLLECT_MAX_HITS).default(COLLECT_DEFAULT_HITS),
  timeoutSeconds: z.number().positive().max(COLLECT_MAX_SECONDS).default(COLLECT_DEFAULT_SECONDS),
});

export type CollectArguments = z.output<typeof collectArgumentsSchema>;

/** The arguments, or a `SessionError` that says what is wrong with them. */
export function parseCollectArguments(args: unknown): CollectArguments {
  const parsed = collectArgumentsSchema.safeParse(args ?? {});
  if (parsed.success) {
    const { path, line, functionName } = parsed.data;
    if (functionName === undefined ? path !== undefined && line !== undefined : path === undefined)
      return parsed.data;
  }
  const issues = (parsed.error?.issues ?? [])
    .slice(0, 3)
    .map((issue) => `"${issue.path.join('.') || 'arguments'}": ${issue.message}`);
  throw new SessionError(
    'invalid-arguments',
    `Invalid ${COLLECT_REQUEST} arguments (${issues.join('; ') || 'give path and line, or functionName'}); ` +
      'expected {"path", "line" | "functionName", "expressions": ["…"], "condition"?, "hitLimit"?, ' +
      '"timeoutSeconds"?}.',
  );
}
