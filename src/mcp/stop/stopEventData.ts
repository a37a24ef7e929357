/**
 * `stop_event_data` (mcp-tools.md): where and why the program stopped, its call stack, the top
 * frame's locals and upvalues, and the source lines around the stop, in one small object, so an
 * agent needs no extra call to get its bearings. An exception stop adds a one-line preview of the
 * locals of the first frames (the callers often hold the cause). Everything is capped — values,
 * variable counts, stack depth, the whole object's bytes (stopBudget.ts) — with an explicit
 * `truncated` marker, and no expensive scope (globals) is read.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { z } from 'zod';
import { plainValueOf } from '../../adapter/changesRequest';
import { BreakpointService, DebugSessionPort } from '../channel';
import { StopRecord } from '../sessionMonitor';
import { fitStopEventData } from './stopBudget';
import { readSourceLines, sourceLineSchema } from './sourceLines';
import { adapterId, breakpointId, count, variablesReference } from '../schemaIds';
import { localsPreview, topFrameVariables, topFrameVariablesSchema } from './stopScopes';
import { autopsySchema, buildAutopsy, readExceptionFacts } from './autopsy';
import { changeSchema, readChanges } from './stopChanges';

/** get_variables shows values up to this length (the stop data shortens them further). */
export const MAX_VALUE_CHARS = 200;
export const MAX_STACK_FRAMES = 20;
/** Frames of an exception stop that get a one-line locals preview. */
export const PREVIEW_FRAMES = 3;

export const variableSchema = z.object({
  name: z.string(),
  value: z.string(),
  type: z.string().optional(),
  variables_reference: variablesReference(),
  evaluate_name: z.string().optional(),
  memory_reference: z.string().optional(),
  named_variables: count().optional(),
  indexed_variables: count().optional(),
  truncated: z.boolean().optional(),
});
export type VariableView = z.infer<typeof variableSchema>;

export const frameSchema = z.object({
  frame_id: adapterId(),
  function_name: z.string(),
  /** Absent for a frame without source (a C function). */
  file_path: z.string().optional(),
  line_number: count(),
  column_number: count(),
});

/** A frame of the stop's call stack: on an exception stop, the first ones preview their locals. */
export const stopFrameSchema = frameSchema.extend({ locals_preview: z.string().optional() });
export type StopFrame = z.infer<typeof stopFrameSchema>;

export const stopEventDataSchema = z.object({
  timestamp: z.string(),
  session_id: z.string(),
  reason: z.string(),
  thread_id: adapterId(),
  // The contract's "|null" fields: absent when unknown (a null union is not portable).
  description: z.string().optional(),
  text: z.string().optional(),
  all_threads_stopped: z.boolean().optional(),
  source: z.object({ path: z.string().optional(), name: z.string().optional() }).optional(),
  line: count().optional(),
  column: count().optional(),
  call_stack: z.array(stopFrameSchema),
  call_stack_truncated: z.boolean().optional(),
  top_frame_variables: topFrameVariablesSchema.optional(),
  changed: z
    .array(changeSchema)
    .optional()
    .describe('Top frame values that differ from the last stop in the same function.'),
  source_lines: z.array(sourceLineSchema).optional(),
  hit_breakpoint_ids: z
    .array(breakpointId())
    .optional()
    .describe('On a breakpoint stop: the ids of the breakpoints hit (set_breakpoint ids).'),
  /** On an exception stop: message, raising frame, user frames, catch site (autopsy.ts). */
  error_autopsy: autopsySchema.optional(),
});
export type StopEventData = z.infer<typeof stopEventDataSchema>;

/** What the output schemas say of stop_event_data: the ids an agent passes on (the rest, open,
 * is in the tool descriptions: call_stack with its frame ids, the top frame's variables, …). */
export const stopEventOutline = z.object({
  session_id: z.string(),
  thread_id: adapterId(),
  reason: z.string(),
});

export function capValue(value: string): { value: string; truncated?: true } {
  if (value.length <= MAX_VALUE_CHARS) return { value };
  return { value: `${value.slice(0, MAX_VALUE_CHARS)}… (${value.length} chars)`, truncated: true };
}

/** A DAP variable, as the tools show it: snake_case, value capped. */
export function viewVariable(variable: DebugProtocol.Variable): VariableView {
  const { value, truncated } = capValue(plainValueOf(variable));
  return {
    name: variable.name,
    value,
    type: variable.type,
    variables_reference: variable.variablesReference,
    evaluate_name: variable.evaluateName,
    memory_reference: variable.memoryReference,
    named_variables: variable.namedVariables,
    indexed_variables: variable.indexedVariables,
    ...(truncated ? { truncated } : {}),
  };
}

export function viewFrame(frame: DebugProtocol.StackFrame): z.infer<typeof frameSchema> {
  return {
    frame_id: frame.id,
    function_name: frame.name,
    file_path: frame.source?.path ?? frame.source?.name,
    line_number: frame.line,
    column_number: frame.column,
  };
}

/** Reads what a stop needs from the session and assembles `stop_event_data`, within budget. */
export async function buildStopEventData(
  session: DebugSessionPort,
  stop: StopRecord,
  breakpoints: BreakpointService,
  workspaceFolders: readonly string[] = [],
): Promise<StopEventData> {
  const body = stop.body;
  const threadId = body.threadId ?? (await firstThreadId(session));
  const trace = (await session.customRequest('stackTrace', {
    threadId,
    startFrame: 0,
    levels: MAX_STACK_FRAMES,
  })) as DebugProtocol.StackTraceResponse['body'];
  const frames = trace.stackFrames ?? [];
  const top = frames[0];
  const isException = body.reason === 'exception';
  const facts = isException ? await readExceptionFacts(session, threadId) : undefined;
  const [autopsy, variables, sourceLines, previews, changed] = await Promise.all([
    isException ? buildAutopsy(session, frames, facts, workspaceFolders) : undefined,
    top ? topFrameVariables(session, top.id) : undefined,
    readSourceLines(top?.source?.path, top?.line),
    isException ? previewsOf(session, frames.slice(0, PREVIEW_FRAMES)) : [],
    top ? readChanges(session) : undefined,
  ]);
  const hitIds = (body.hitBreakpointIds ?? [])
    .map((adapterId) => breakpoints.idForAdapterBreakpoint(session.id, adapterId))
    .filter((id): id is number => id !== undefined);
  return fitStopEventData({
    timestamp: stop.at.toISOString(),
    session_id: session.id,
    reason: body.reason,
    thread_id: threadId,
    description: body.description,
    text: isException ? (facts?.text ?? body.text ?? body.description) : undefined,
    all_threads_stopped: body.allThreadsStopped,
    source: top?.source ? { path: top.source.path, name: top.source.name } : undefined,
    line: top?.line,
    column: top?.column,
    call_stack: frames.map((frame, i) => {
      const preview = previews[i];
      return preview !== undefined
        ? { ...viewFrame(frame), locals_preview: preview }
        : viewFrame(frame);
    }),
    ...((trace.totalFrames ?? frames.length) > frames.length ? { call_stack_truncated: true } : {}),
    top_frame_variables: variables,
    ...(changed ? { changed } : {}),
    ...(sourceLines ? { source_lines: sourceLines } : {}),
    hit_breakpoint_ids: body.reason === 'breakpoint' || hitIds.length > 0 ? hitIds : undefined,
    ...(autopsy ? { error_autopsy: autopsy } : {}),
  });
}

/** One-line locals of each frame; a frame whose locals cannot be read gets none. */
function previewsOf(
  session: DebugSessionPort,
  frames: readonly DebugProtocol.StackFrame[],
): Promise<(string | undefined)[]> {
  return Promise.all(
    frames.map((frame) => localsPreview(session, frame.id).catch(() => undefined)),
  );
}

async function firstThreadId(session: DebugSessionPort): Promise<number> {
  const threads = (await session.customRequest('threads')) as DebugProtocol.ThreadsResponse['body'];
  const first = threads.threads[0];
  if (!first) throw new Error('The debugger reported a stop but no threads.');
  return first.id;
}
