/**
 * `stop_event_data` (mcp-tools.md): where and why the program stopped, its call stack and the top
 * frame's main scope, in one small object, so an agent needs no extra call to get its bearings.
 * Everything is capped — values, variable counts, stack depth — with an explicit `truncated`
 * marker, and the top frame's scope is never an expensive one (globals are not auto-expanded).
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { z } from 'zod';
import { BreakpointService, DebugSessionPort } from './channel';
import { StopRecord } from './sessionMonitor';

export const MAX_VALUE_CHARS = 200;
export const MAX_TOP_VARIABLES = 25;
export const MAX_STACK_FRAMES = 20;

export const variableSchema = z.object({
  name: z.string(),
  value: z.string(),
  type: z.string().optional(),
  variables_reference: z.number(),
  evaluate_name: z.string().optional(),
  memory_reference: z.string().optional(),
  named_variables: z.number().optional(),
  indexed_variables: z.number().optional(),
  truncated: z.boolean().optional(),
});
export type VariableView = z.infer<typeof variableSchema>;

export const frameSchema = z.object({
  frame_id: z.number(),
  function_name: z.string(),
  file_path: z.string().nullable(),
  line_number: z.number(),
  column_number: z.number(),
});

export const stopEventDataSchema = z.object({
  timestamp: z.string(),
  session_id: z.string(),
  reason: z.string(),
  thread_id: z.number(),
  description: z.string().nullable(),
  text: z.string().nullable(),
  all_threads_stopped: z.boolean().nullable(),
  source: z.object({ path: z.string().nullable(), name: z.string().nullable() }).nullable(),
  line: z.number().nullable(),
  column: z.number().nullable(),
  call_stack: z.array(frameSchema),
  call_stack_truncated: z.boolean().optional(),
  top_frame_variables: z
    .object({
      scope_name: z.string(),
      variables_reference: z.number(),
      variables: z.array(variableSchema),
      total: z.number().optional(),
      truncated: z.boolean(),
    })
    .nullable(),
  hit_breakpoint_ids: z.array(z.number()).nullable(),
});
export type StopEventData = z.infer<typeof stopEventDataSchema>;

export function capValue(value: string): { value: string; truncated?: true } {
  if (value.length <= MAX_VALUE_CHARS) return { value };
  return { value: `${value.slice(0, MAX_VALUE_CHARS)}… (${value.length} chars)`, truncated: true };
}

/** A DAP variable, as the tools show it: snake_case, value capped. */
export function viewVariable(variable: DebugProtocol.Variable): VariableView {
  const { value, truncated } = capValue(variable.value);
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
    file_path: frame.source?.path ?? frame.source?.name ?? null,
    line_number: frame.line,
    column_number: frame.column,
  };
}

/** Reads what a stop needs from the session and assembles `stop_event_data`. */
export async function buildStopEventData(
  session: DebugSessionPort,
  stop: StopRecord,
  breakpoints: BreakpointService,
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
  const exceptionText =
    body.reason === 'exception' ? await exceptionTextOf(session, threadId, body) : null;
  const hitIds = (body.hitBreakpointIds ?? [])
    .map((adapterId) => breakpoints.idForAdapterBreakpoint(session.id, adapterId))
    .filter((id): id is number => id !== undefined);
  return {
    timestamp: stop.at.toISOString(),
    session_id: session.id,
    reason: body.reason,
    thread_id: threadId,
    description: body.description ?? null,
    text: exceptionText,
    all_threads_stopped: body.allThreadsStopped ?? null,
    source: top?.source ? { path: top.source.path ?? null, name: top.source.name ?? null } : null,
    line: top?.line ?? null,
    column: top?.column ?? null,
    call_stack: frames.map(viewFrame),
    ...((trace.totalFrames ?? frames.length) > frames.length ? { call_stack_truncated: true } : {}),
    top_frame_variables: top ? await topFrameVariables(session, top.id) : null,
    hit_breakpoint_ids: body.reason === 'breakpoint' || hitIds.length > 0 ? hitIds : null,
  };
}

async function firstThreadId(session: DebugSessionPort): Promise<number> {
  const threads = (await session.customRequest('threads')) as DebugProtocol.ThreadsResponse['body'];
  const first = threads.threads[0];
  if (!first) throw new Error('The debugger reported a stop but no threads.');
  return first.id;
}

async function exceptionTextOf(
  session: DebugSessionPort,
  threadId: number,
  body: DebugProtocol.StoppedEvent['body'],
): Promise<string | null> {
  try {
    const info = (await session.customRequest('exceptionInfo', {
      threadId,
    })) as DebugProtocol.ExceptionInfoResponse['body'];
    return info.description ?? info.exceptionId ?? body.text ?? null;
  } catch {
    return body.text ?? body.description ?? null;
  }
}

async function topFrameVariables(
  session: DebugSessionPort,
  frameId: number,
): Promise<StopEventData['top_frame_variables']> {
  const { scopes } = (await session.customRequest('scopes', {
    frameId,
  })) as DebugProtocol.ScopesResponse['body'];
  const scope =
    scopes.find((s) => !s.expensive && /local/i.test(s.name)) ?? scopes.find((s) => !s.expensive);
  if (!scope || scope.variablesReference === 0) return null;
  const { variables } = (await session.customRequest('variables', {
    variablesReference: scope.variablesReference,
    start: 0,
    count: MAX_TOP_VARIABLES + 1,
  })) as DebugProtocol.VariablesResponse['body'];
  const shown = variables.slice(0, MAX_TOP_VARIABLES).map(viewVariable);
  const total =
    scope.namedVariables !== undefined
      ? scope.namedVariables + (scope.indexedVariables ?? 0)
      : undefined;
  return {
    scope_name: scope.name,
    variables_reference: scope.variablesReference,
    variables: shown,
    ...(total !== undefined ? { total } : {}),
    truncated: variables.length > MAX_TOP_VARIABLES || shown.some((v) => v.truncated === true),
  };
}
