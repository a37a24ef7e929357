/**
 * `set_breakpoint`, `remove_breakpoint`, `get_breakpoints`: breakpoints by file and line, with
 * conditions, hit conditions and logpoints. They work with or without a session; inside VS Code
 * they are the breakpoints the user sees in the editor.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import { BreakpointInfo } from '../channel';
import { ToolResult, baseOutputShape, error } from '../results';
import { breakpointId } from '../schemaIds';
import { ANNOTATIONS, ToolContext, defineTool } from './context';
import { breakpointOptions, breakpointOutput } from './breakpointArgs';
import { functionView } from './functionBreakpoints';

/** A breakpoint as the tools return it (the output schemas outline it: id and verified). */
export interface BreakpointView {
  id: number;
  verified: boolean;
  source: { path: string };
  /** Where it is bound (or will bind). */
  line: number;
  /** The line asked for, when the breakpoint moved to the next line with code. */
  requested_line?: number;
  column?: number;
  condition?: string;
  hit_condition?: string;
  log_message?: string;
  /** Why it is not verified, or where it moved. */
  message?: string;
  timestamp?: string;
}

function view(info: BreakpointInfo, timestamp?: string): BreakpointView {
  return {
    id: info.id,
    verified: info.verified,
    source: { path: info.filePath },
    line: info.boundLine ?? info.line,
    ...(info.boundLine !== undefined ? { requested_line: info.line } : {}),
    ...(info.column !== undefined ? { column: info.column } : {}),
    ...(info.condition ? { condition: info.condition } : {}),
    ...(info.hitCondition ? { hit_condition: info.hitCondition } : {}),
    ...(info.logMessage ? { log_message: info.logMessage } : {}),
    ...(info.message ? { message: info.message } : {}),
    ...(timestamp ? { timestamp } : {}),
  };
}

/** Resolves `file_path` against the workspace; refuses paths outside it unless allowed. */
export async function resolveSourcePath(
  context: ToolContext,
  filePath: string,
): Promise<{ path: string } | { failure: ToolResult }> {
  const folders = context.channel.workspaceFolders();
  const absolute = path.resolve(folders[0] ?? process.cwd(), filePath);
  const inside = folders.some((folder) => {
    const relative = path.relative(folder, absolute);
    return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
  });
  if (!inside && !context.settings.allowOutsideWorkspace) {
    return {
      failure: error(
        'outside-workspace',
        `${absolute} is outside the workspace folders (${folders.join(', ') || 'none'}). ` +
          'Use a path inside the workspace, or allow outside paths in the settings.',
      ),
    };
  }
  try {
    const stat = await fs.stat(absolute);
    if (!stat.isFile()) return { failure: error('file-not-found', `${absolute} is not a file.`) };
  } catch {
    return {
      failure: error(
        'file-not-found',
        `No such file: ${absolute}. Give a path relative to the workspace or an absolute one.`,
      ),
    };
  }
  return { path: absolute };
}

export const setBreakpoint = defineTool({
  name: 'set_breakpoint',
  title: 'Set a breakpoint',
  description:
    'Sets a breakpoint at file_path (absolute or workspace-relative) and line_number. condition ' +
    '(Lua; stops when true), hit_condition ("> 5", "== 3", "% 2"), log_message (a logpoint: logs, ' +
    '{expr} interpolated, no stop; see get_output). Works before a session exists. Returns ' +
    'breakpoint: id (as in hit_breakpoint_ids), line (requested_line: if it moved to code), ' +
    'verified, message.',
  // (No field descriptions: the description says it all, and tools/list must stay small.)
  inputSchema: {
    file_path: z.string().min(1),
    line_number: z.number().int().min(1),
    column_number: z.number().int().min(1).optional(),
    ...breakpointOptions,
  },
  outputSchema: breakpointOutput,
  annotations: ANNOTATIONS.changes,
  async handler(args, context) {
    const resolved = await resolveSourcePath(context, args.file_path);
    if ('failure' in resolved) return resolved.failure;
    const info = await context.channel.breakpoints.add({
      filePath: resolved.path,
      line: args.line_number,
      column: args.column_number,
      condition: args.condition,
      hitCondition: args.hit_condition,
      logMessage: args.log_message,
    });
    return { status: 'success', breakpoint: view(info, new Date().toISOString()) };
  },
});

export const removeBreakpoint = defineTool({
  name: 'remove_breakpoint',
  title: 'Remove breakpoints',
  description:
    'Removes breakpoints. Pass one of: breakpoint_id (any kind), location ' +
    '{file_path, line_number} (every breakpoint on that line), or clear_all: true.',
  inputSchema: {
    breakpoint_id: breakpointId().optional(),
    location: z
      .object({ file_path: z.string().min(1), line_number: z.number().int().min(1) })
      .optional(),
    clear_all: z.boolean().optional(),
  },
  outputSchema: { ...baseOutputShape, removed_ids: z.array(breakpointId()).optional() },
  annotations: ANNOTATIONS.changes,
  async handler(args, context) {
    const given = [
      args.breakpoint_id !== undefined,
      args.location !== undefined,
      args.clear_all === true,
    ];
    if (given.filter(Boolean).length !== 1) {
      return error(
        'invalid-arguments',
        'Pass exactly one of breakpoint_id, location or clear_all: true.',
      );
    }
    const all = context.channel.breakpoints.list();
    const functions = context.channel.breakpoints.listFunctions();
    let ids: number[];
    if (args.breakpoint_id !== undefined) {
      ids = [...all, ...functions].filter((b) => b.id === args.breakpoint_id).map((b) => b.id);
      if (ids.length === 0)
        return error(
          'invalid-arguments',
          `No breakpoint with id ${args.breakpoint_id}. Call get_breakpoints to list them.`,
        );
    } else if (args.location) {
      const folder = context.channel.workspaceFolders()[0] ?? process.cwd();
      const file = path.resolve(folder, args.location.file_path);
      ids = all
        .filter(
          (b) =>
            samePath(b.filePath, file) &&
            (b.line === args.location!.line_number || b.boundLine === args.location!.line_number),
        )
        .map((b) => b.id);
      if (ids.length === 0) {
        return error('invalid-arguments', `No breakpoint at ${file}:${args.location.line_number}.`);
      }
    } else {
      ids = [...all, ...functions].map((b) => b.id);
    }
    await context.channel.breakpoints.remove(ids);
    return {
      status: 'success',
      removed_ids: ids,
      message:
        ids.length === 0
          ? 'There were no breakpoints to remove.'
          : `Removed ${ids.length} breakpoint(s).`,
    };
  },
});

export const getBreakpoints = defineTool({
  name: 'get_breakpoints',
  title: 'List breakpoints',
  description:
    'Lists every breakpoint: id, file, line, condition, hit_condition, log_message, verified ' +
    '(kind "function": function_name).',
  inputSchema: {},
  outputSchema: {
    ...baseOutputShape,
    breakpoints: z.array(z.object({ id: breakpointId() })).optional(),
  },
  annotations: ANNOTATIONS.readOnly,
  async handler(_args, context) {
    return {
      status: 'success',
      timestamp: new Date().toISOString(),
      breakpoints: [
        ...context.channel.breakpoints.list().map((b) => view(b)),
        ...context.channel.breakpoints.listFunctions().map((b) => functionView(b)),
      ],
    };
  },
});

function samePath(a: string, b: string): boolean {
  const norm = (p: string) =>
    process.platform === 'win32' ? path.normalize(p).toLowerCase() : path.normalize(p);
  return norm(a) === norm(b);
}
