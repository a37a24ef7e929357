/**
 * `set_function_breakpoint`: a breakpoint on a function by the name Lua source gives it
 * (`Entity:update`, `util.helper`, `love.update`, `tick`); the program stops when the function is
 * entered. It lives beside the line breakpoints: listed by `get_breakpoints` (kind "function"),
 * removed by `remove_breakpoint`, reported in `hit_breakpoint_ids`.
 */
import { z } from 'zod';
import { FunctionBreakpointInfo } from '../channel';
import { breakpointOptions, breakpointOutput } from './breakpointArgs';
import { ANNOTATIONS, defineTool } from './context';

/** A function breakpoint as the tools return it. */
export interface FunctionBreakpointView {
  id: number;
  kind: 'function';
  function_name: string;
  verified: boolean;
  /** Where it bound: the function's file and first line (absent until a session binds it). */
  source?: { path: string };
  line?: number;
  condition?: string;
  hit_condition?: string;
  log_message?: string;
  message?: string;
  timestamp?: string;
}

export function functionView(
  info: FunctionBreakpointInfo,
  timestamp?: string,
): FunctionBreakpointView {
  return {
    id: info.id,
    kind: 'function',
    function_name: info.functionName,
    verified: info.verified,
    ...(info.filePath !== undefined ? { source: { path: info.filePath } } : {}),
    ...(info.line !== undefined ? { line: info.line } : {}),
    ...(info.condition ? { condition: info.condition } : {}),
    ...(info.hitCondition ? { hit_condition: info.hitCondition } : {}),
    ...(info.logMessage ? { log_message: info.logMessage } : {}),
    ...(info.message ? { message: info.message } : {}),
    ...(timestamp ? { timestamp } : {}),
  };
}

export const setFunctionBreakpoint = defineTool({
  name: 'set_function_breakpoint',
  title: 'Set a function breakpoint',
  description:
    'Stops on entry to the Lua function function_name ("Entity:update", "util.helper", "tick"). Else as ' +
    'set_breakpoint; verified (with source, line) once its code is loaded.',
  inputSchema: {
    function_name: z.string().min(1),
    ...breakpointOptions,
  },
  outputSchema: breakpointOutput,
  annotations: ANNOTATIONS.changes,
  async handler(args, context) {
    const info = await context.channel.breakpoints.addFunction({
      functionName: args.function_name.trim(),
      condition: args.condition,
      hitCondition: args.hit_condition,
      logMessage: args.log_message,
    });
    return { status: 'success', breakpoint: functionView(info, new Date().toISOString()) };
  },
});
