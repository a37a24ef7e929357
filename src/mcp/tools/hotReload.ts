/**
 * `hot_reload_file`: loads a changed Lua file into the running or paused program through the
 * adapter's `luapanda/hotReload` request, so that an agent can fix code without restarting the
 * game. It runs code in the program, so it asks the code-execution approval first.
 */
import { z } from 'zod';
import { HOT_RELOAD_REQUEST } from '../../adapter/hotReloadRequest';
import { HotReloadReport, ReloadEntry, reportHeadline } from '../../session/hotReload';
import { notAllowed } from '../errors';
import { ToolResult, baseOutputShape, error } from '../results';
import { resolveSourcePath } from './breakpoints';
import { ANNOTATIONS, defineTool, findLuaSession, messageOf } from './context';

/** The debug type whose adapter serves the request. */

const view = (entries: readonly ReloadEntry[]) =>
  entries.map((e) => ({
    name: e.name,
    ...(e.line ? { line: e.line } : {}),
    ...(e.reason ? { reason: e.reason } : {}),
    ...(e.changed !== undefined ? { changed: e.changed } : {}),
  }));

/** What the agent can do about a failed reload, by phase. */
const NEXT_STEP: Record<string, string> = {
  find: ' The program has not loaded this file (yet), or under another path: run the code that loads it first.',
  compile: ' Fix the file and call hot_reload_file again.',
  run: ' Running the new file raised this error: fix it and call hot_reload_file again.',
};

/** The report as the agent reads it: snake_case, what it needs for its next step. */
export function reportResult(report: HotReloadReport): ToolResult {
  if (report.status === 'error') {
    return {
      ...error('reload-failed', `${reportHeadline(report)}.${NEXT_STEP[report.phase ?? ''] ?? ''}`),
      ...(report.phase ? { phase: report.phase } : {}),
    };
  }
  const kept =
    report.notFound.length + report.notReplaced.length > 0
      ? ' not_found and not_replaced functions keep the old code (see each reason).'
      : '';
  const active =
    report.active.length > 0
      ? ' active ones are running now: they finish in the old code, their next call runs the new.'
      : '';
  return {
    status: 'success',
    message:
      `${reportHeadline(report)}.${kept}${active} Continue the program if it is paused ` +
      '(continue_debugging), then check get_output.',
    ...(report.chunk ? { chunk: report.chunk } : {}),
    ...(report.module ? { module: report.module } : {}),
    replaced: view(report.replaced),
    added: view(report.added),
    not_found: view(report.notFound),
    not_replaced: view(report.notReplaced),
    active: view(report.active),
    references: report.references,
    ...(report.incomplete ? { incomplete: report.incomplete } : {}),
    time_ms: report.timeMs,
  };
}

export const hotReloadFile = defineTool({
  name: 'hot_reload_file',
  title: 'Hot reload a Lua file',
  description:
    'Reloads a changed Lua file (absolute or workspace-relative) into the running or paused program, ' +
    'keeping its state (then continue_debugging, get_output). Lists replaced, added, ' +
    'not_found/not_replaced, active. error: nothing changed.',
  inputSchema: {
    file_path: z.string().min(1),
    session_id: z.string().optional(),
  },
  outputSchema: baseOutputShape,
  annotations: ANNOTATIONS.destructive,
  async handler(args, context) {
    const resolved = await resolveSourcePath(context, args.file_path);
    if ('failure' in resolved) return resolved.failure;
    const found = findLuaSession(context, args.session_id, 'hot_reload_file reloads Lua files');
    if ('failure' in found) return found.failure;
    const { session } = found;
    if (context.approve && !(await context.approve('reload', resolved.path))) {
      return notAllowed('reload');
    }
    try {
      const report = (await session.customRequest(HOT_RELOAD_REQUEST, {
        path: resolved.path,
      })) as HotReloadReport;
      return reportResult(report);
    } catch (e) {
      return error('reload-failed', `Could not hot reload ${resolved.path}: ${messageOf(e)}`);
    }
  },
});
