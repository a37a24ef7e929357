/**
 * The tools that read a paused program: `get_stack_trace`, `get_scopes`, `get_variables` (paged)
 * and `evaluate_expression`.
 */
import type { DebugProtocol } from '@vscode/debugprotocol';
import { z } from 'zod';
import { notAllowed } from '../errors';
import { baseOutputShape, error } from '../results';
import { adapterId, count, variablesReference } from '../schemaIds';
import { viewFrame, viewVariable } from '../stop/stopEventData';
import { FAILED_EVALUATION } from '../../adapter/evaluation';
import { DebugSessionPort } from '../channel';
import { ANNOTATIONS, ToolContext, defineTool, findStoppedSession, messageOf } from './context';

const sessionArg = z.string().optional();
export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 500;

export const getStackTrace = defineTool({
  name: 'get_stack_trace',
  title: 'Get the call stack',
  description:
    'The call stack of a paused thread, deeper than stop_event_data carries: ' +
    'start_frame (default 0) and levels (default 50). Pass a frame_id to get_scopes or evaluate_expression.',
  inputSchema: {
    thread_id: adapterId(),
    start_frame: count().optional(),
    levels: z.number().int().min(1).max(500).optional(),
    session_id: sessionArg,
  },
  outputSchema: {
    ...baseOutputShape,
    stack_frames: z.array(z.object({ frame_id: adapterId() })).optional(),
    total_frames: count().optional(),
  },
  annotations: ANNOTATIONS.readOnly,
  async handler(args, context) {
    const found = findStoppedSession(context, args.session_id);
    if ('failure' in found) return found.failure;
    try {
      const body = (await found.session.customRequest('stackTrace', {
        threadId: args.thread_id,
        startFrame: args.start_frame ?? 0,
        levels: args.levels ?? 50,
      })) as DebugProtocol.StackTraceResponse['body'];
      return {
        status: 'success',
        stack_frames: body.stackFrames.map(viewFrame),
        ...(body.totalFrames !== undefined ? { total_frames: body.totalFrames } : {}),
      };
    } catch (e) {
      return error(
        'read-failed',
        `Could not read the stack of thread ${args.thread_id}: ${messageOf(e)}`,
      );
    }
  },
});

export const getScopes = defineTool({
  name: 'get_scopes',
  title: 'Get the scopes of a frame',
  description:
    'The scopes of a stack frame (frame_id from call_stack): Locals, Upvalues, Globals… Pass a ' +
    "scope's variables_reference to get_variables.",
  inputSchema: { frame_id: adapterId(), session_id: sessionArg },
  outputSchema: {
    ...baseOutputShape,
    scopes: z
      .array(z.object({ name: z.string(), variables_reference: variablesReference() }))
      .optional(),
  },
  annotations: ANNOTATIONS.readOnly,
  async handler(args, context) {
    const found = findStoppedSession(context, args.session_id);
    if ('failure' in found) return found.failure;
    try {
      const { scopes } = (await found.session.customRequest('scopes', {
        frameId: args.frame_id,
      })) as DebugProtocol.ScopesResponse['body'];
      return {
        status: 'success',
        scopes: scopes.map((s) => ({
          name: s.name,
          variables_reference: s.variablesReference,
          expensive: s.expensive,
          ...(s.namedVariables !== undefined ? { named_variables: s.namedVariables } : {}),
          ...(s.indexedVariables !== undefined ? { indexed_variables: s.indexedVariables } : {}),
        })),
      };
    } catch (e) {
      return error(
        'read-failed',
        `Could not read the scopes of frame ${args.frame_id}: ${messageOf(e)}. Use a frame_id from the latest stop.`,
      );
    }
  },
});

export const getVariables = defineTool({
  name: 'get_variables',
  title: 'Get variables',
  description:
    'Children of a scope or value (variables_reference > 0 from get_scopes, stop_event_data or ' +
    'get_variables). Paged: start (default 0), count (default 100); has_more, next_start. ' +
    'References last one stop.',
  inputSchema: {
    variables_reference: z.number().int().min(1),
    start: count().optional(),
    count: z.number().int().min(1).max(MAX_PAGE).optional(),
    session_id: sessionArg,
  },
  outputSchema: {
    ...baseOutputShape,
    variables: z
      .array(z.object({ name: z.string(), variables_reference: variablesReference() }))
      .optional(),
    has_more: z.boolean().optional(),
    next_start: count().optional(),
  },
  annotations: ANNOTATIONS.readOnly,
  async handler(args, context) {
    const found = findStoppedSession(context, args.session_id);
    if ('failure' in found) return found.failure;
    const start = args.start ?? 0;
    const count = args.count ?? DEFAULT_PAGE;
    try {
      const { variables } = (await found.session.customRequest('variables', {
        variablesReference: args.variables_reference,
        start,
        count: count + 1,
      })) as DebugProtocol.VariablesResponse['body'];
      // An adapter without paging returns everything: slice here so the agent still gets a page.
      const page =
        variables.length > count + 1 ? variables.slice(start, start + count + 1) : variables;
      const hasMore = page.length > count;
      return {
        status: 'success',
        variables: page.slice(0, count).map(viewVariable),
        start,
        has_more: hasMore,
        ...(hasMore ? { next_start: start + count } : {}),
      };
    } catch (e) {
      return error(
        'read-failed',
        `Could not read variables_reference ${args.variables_reference}: ${messageOf(e)}. ` +
          'References die when the program moves; take fresh ones from the latest stop.',
      );
    }
  },
});

/** The top frame of the latest stop of `session` (frame ids change at every step). */
async function topFrameId(context: ToolContext, session: DebugSessionPort): Promise<number> {
  let threadId = context.monitor.lastStop(session.id)?.body.threadId;
  if (threadId === undefined) {
    const { threads } = (await session.customRequest(
      'threads',
    )) as DebugProtocol.ThreadsResponse['body'];
    threadId = threads[0]?.id;
  }
  if (threadId === undefined) throw new Error('the debugger reports no thread');
  const { stackFrames } = (await session.customRequest('stackTrace', {
    threadId,
    startFrame: 0,
    levels: 1,
  })) as DebugProtocol.StackTraceResponse['body'];
  const top = stackFrames[0];
  if (!top) throw new Error(`thread ${threadId} has no stack frames`);
  return top.id;
}

export const evaluateExpression = defineTool({
  name: 'evaluate_expression',
  title: 'Evaluate an expression',
  description:
    "Evaluates Lua in a paused frame (frame_id from call_stack; default: the latest stop's top " +
    'frame). context: "repl" (default; statements run), "watch"/"hover" (read-only), "clipboard". ' +
    'Returns result, type, variables_reference (> 0: get_variables). "error": syntax error, undefined ' +
    'name, or the program runs.',
  inputSchema: {
    expression: z.string().min(1),
    frame_id: adapterId().optional(),
    context: z.enum(['watch', 'repl', 'hover', 'clipboard']).optional(),
    session_id: sessionArg,
  },
  outputSchema: {
    ...baseOutputShape,
    result: z.string().optional(),
    variables_reference: variablesReference().optional(),
  },
  annotations: ANNOTATIONS.destructive,
  async handler(args, context) {
    const found = findStoppedSession(context, args.session_id);
    if ('failure' in found) return found.failure;
    const evalContext = args.context ?? 'repl';
    if (
      context.approve &&
      evalContext === 'repl' &&
      !(await context.approve('evaluate', args.expression))
    ) {
      return notAllowed('evaluate');
    }
    const failed = (message: string) =>
      error('evaluate-failed', `Could not evaluate "${args.expression}": ${message}`);
    try {
      const frameId = args.frame_id ?? (await topFrameId(context, found.session));
      const body = (await found.session.customRequest('evaluate', {
        expression: args.expression,
        frameId,
        context: evalContext,
      })) as DebugProtocol.EvaluateResponse['body'];
      // A watch or hover that failed is answered with the message as its result.
      if (body.presentationHint?.attributes?.includes(FAILED_EVALUATION))
        return failed(body.result);
      const { value, truncated } = {
        ...viewVariable({ name: '', value: body.result, variablesReference: 0 }),
      };
      return {
        status: 'success',
        result: value,
        type: body.type,
        variables_reference: body.variablesReference,
        ...(truncated ? { truncated } : {}),
      };
    } catch (e) {
      return failed(messageOf(e));
    }
  },
});
