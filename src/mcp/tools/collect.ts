/**
 * `collect_values`: evaluates expressions at a line (or a function's entry) on every hit while the
 * program runs on, through the adapter's `luapanda/collect` request, and returns them as a table
 * with a summary per expression. The runtime collects without stopping; nothing is left behind.
 */
import { promises as fs } from 'node:fs';
import { z } from 'zod';
import {
  COLLECT_DEFAULT_HITS,
  COLLECT_DEFAULT_SECONDS,
  COLLECT_MAX_EXPRESSIONS,
  COLLECT_MAX_HITS,
  COLLECT_MAX_SECONDS,
  COLLECT_REQUEST,
} from '../../adapter/collectRequest';
import { SESSION_ERRORS, type CollectReport } from '../../session';
import { collectTable } from '../collectTable';
import { notAllowed } from '../errors';
import { ToolResult, baseOutputShape, error } from '../results';
import { resolveSourcePath } from './breakpoints';
import { ANNOTATIONS, defineTool, findLuaSession, messageOf } from './context';

/** Time beyond the collect's own timeout that the request may take to come back. */
const ANSWER_MARGIN_MS = 15_000;

const ENDED: Record<CollectReport['ended'], string> = {
  'hit-limit': 'the hit limit was reached',
  timeout: 'the timeout passed',
  'session-ended': 'the session ended',
};

/** Whether line `line` exists in `file` (a bad location is an error, not an empty table). */
async function lineExists(file: string, line: number): Promise<boolean> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  return line <= text.split('\n').length;
}

export const collectValues = defineTool({
  name: 'collect_values',
  title: 'Collect values',
  description:
    "Evaluates expressions at file_path+line_number (or function_name's entry) on each hit " +
    'without stopping (a paused program continues): for a value that goes wrong over many hits. ' +
    'Returns a row per hit (values, frames) and a summary per expression.',
  // Ceilings (expressions, hit_limit, timeout_seconds) are checked by the handler: tools/list
  // must stay small.
  inputSchema: {
    expressions: z.array(z.string()),
    file_path: z.string().optional(),
    line_number: z.number().int().min(1).optional(),
    function_name: z.string().optional(),
    condition: z.string().optional(),
    hit_limit: z.number().int().optional(),
    timeout_seconds: z.number().optional(),
    session_id: z.string().optional(),
  },
  outputSchema: baseOutputShape,
  annotations: ANNOTATIONS.destructive,
  async handler(args, context, extras) {
    const count = args.expressions.length;
    if (count === 0 || count > COLLECT_MAX_EXPRESSIONS || args.expressions.some((e) => !e.trim())) {
      return error(
        'invalid-arguments',
        `Give 1 to ${COLLECT_MAX_EXPRESSIONS} expressions, none empty.`,
      );
    }
    const byFile = args.file_path !== undefined || args.line_number !== undefined;
    const byName = args.function_name !== undefined;
    if (byFile === byName || (byFile && !args.line_number) || (byName && !args.function_name)) {
      return error(
        'invalid-arguments',
        'Give file_path and line_number, or function_name (not both).',
      );
    }
    let where: Record<string, unknown> = { functionName: args.function_name };
    if (byFile) {
      const resolved = await resolveSourcePath(context, args.file_path ?? '');
      if ('failure' in resolved) return resolved.failure;
      if (!(await lineExists(resolved.path, args.line_number ?? 0))) {
        return error('invalid-arguments', `${resolved.path} has no line ${args.line_number}.`);
      }
      where = { path: resolved.path, line: args.line_number };
    }
    const found = findLuaSession(context, args.session_id, 'collect_values works');
    if ('failure' in found) return found.failure;
    const { session } = found;
    // Expressions run in the program, as evaluate_expression's do.
    if (context.approve && !(await context.approve('evaluate', args.expressions.join(', ')))) {
      return notAllowed('evaluate');
    }
    const clamp = (n: number, low: number, high: number) => Math.min(Math.max(n, low), high);
    const hitLimit = clamp(args.hit_limit ?? COLLECT_DEFAULT_HITS, 1, COLLECT_MAX_HITS);
    const seconds = clamp(
      args.timeout_seconds ?? COLLECT_DEFAULT_SECONDS,
      0.1,
      COLLECT_MAX_SECONDS,
    );
    const waiting = `collecting up to ${hitLimit} hits for ${seconds} s`;
    extras.progress(waiting);
    // As the waiting tools do: a client that resets its timeout on progress waits the whole time.
    const heartbeat = setInterval(() => extras.progress(waiting), 5_000);
    let report: CollectReport;
    try {
      report = (await session.customRequest(
        COLLECT_REQUEST,
        {
          ...where,
          expressions: args.expressions,
          hitLimit,
          timeoutSeconds: seconds,
          ...(args.condition ? { condition: args.condition } : {}),
        },
        seconds * 1000 + ANSWER_MARGIN_MS,
      )) as CollectReport;
    } catch (e) {
      return failure(e);
    } finally {
      clearInterval(heartbeat);
    }
    return reportResult(report, args.expressions, context.channel.workspaceFolders()[0]);
  },
});

/** A refused collect: the runtime's or the session's reason, with the code it fits. */
function failure(e: unknown): ToolResult {
  const id = (e as { errorId?: unknown }).errorId;
  const message = messageOf(e);
  if (
    id === SESSION_ERRORS['invalid-arguments'] ||
    /was not set|No function named|defined \d+ times/.test(message)
  ) {
    return error('invalid-arguments', message);
  }
  if (id === SESSION_ERRORS['not-supported'] || /cannot collect/.test(message)) {
    return error('not-supported', message);
  }
  return error('debugger-error', `Could not collect values: ${message}`);
}

function reportResult(
  report: CollectReport,
  expressions: readonly string[],
  workspace: string | undefined,
): ToolResult {
  const table = collectTable(report, expressions, workspace);
  const none =
    report.hits.length === 0
      ? ' No hit: check that the line has code and the program reaches it (or the condition).'
      : '';
  const condition = report.conditionError
    ? ` The condition failed (${report.conditionError}); it counts as false.`
    : '';
  return {
    status: 'success',
    message: `${report.hits.length} hit(s) at ${report.path}:${report.line}; ${ENDED[report.ended]}.${none}${condition}`,
    ended: report.ended,
    ...table,
  };
}
