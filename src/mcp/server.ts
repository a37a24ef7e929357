/**
 * Builds an MCP server with the debugger tools over a shared backend (channel, monitor,
 * settings). One `McpServer` serves one MCP session; every server made by the same backend drives
 * the same debug sessions.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { getProcessTracer } from '../common/trace';
import { PACKAGE_VERSION } from '../common/version';
import { error, toCallToolResult } from './results';
import { listTools } from './toolListing';
import { registerPrompts } from './prompts';
import { getBreakpoints, removeBreakpoint, setBreakpoint } from './tools/breakpoints';
import { setFunctionBreakpoint } from './tools/functionBreakpoints';
import { getDebuggerConfigurations } from './tools/configurations';
import { setExceptionFilters } from './tools/exceptionFilters';
import { CallExtras, ToolContext, ToolDefinition } from './tools/context';
import {
  continueDebugging,
  pauseDebugging,
  startDebugging,
  stepExecution,
  stopDebugging,
} from './tools/execution';
import { hotReloadFile } from './tools/hotReload';
import { collectValues } from './tools/collect';
import { evaluateExpression, getScopes, getStackTrace, getVariables } from './tools/inspection';
import { getDebugState, getOutput } from './tools/state';

export const SERVER_NAME = 'luapanda-mcp';

/** Every tool, in the order of the contract (mcp-tools.md), then the ones beyond it. */
export const TOOLS: readonly ToolDefinition<z.ZodRawShape>[] = [
  getDebuggerConfigurations,
  setBreakpoint,
  removeBreakpoint,
  getBreakpoints,
  startDebugging,
  continueDebugging,
  stepExecution,
  getScopes,
  getVariables,
  evaluateExpression,
  stopDebugging,
  getDebugState,
  pauseDebugging,
  getOutput,
  getStackTrace,
  setExceptionFilters,
  setFunctionBreakpoint,
  hotReloadFile,
  collectValues,
] as unknown as readonly ToolDefinition<z.ZodRawShape>[];

export const INSTRUCTIONS = `LuaPanda MCP debugs Lua programs (and, inside VS Code, any debugger the user has) in the same session the human sees.
Golden path:
1. get_debugger_configurations — pick a configuration name.
2. set_breakpoint — file_path + line_number (condition, hit_condition, log_message optional); set_function_breakpoint — a function by name ("Entity:update"). Both work before a session exists.
3. start_debugging — waits for the first stop: status "stopped" carries stop_event_data (reason, thread_id, call_stack, top_frame_variables with upvalues, source_lines; on an error, error_autopsy: raising frame, user frames, catch line). exception_filters ["uncaught", "caught", "assert"] chooses which errors stop it (set_exception_filters changes them later).
4. Inspect: get_variables (expand variables_reference > 0), get_scopes / get_stack_trace for other frames, evaluate_expression in a frame_id.
5. Move: step_execution (over/into/out) or continue_debugging with stop_event_data.thread_id; each waits for the next stop.
6. stop_debugging when done. get_output shows what the program printed and what logpoints logged.
A value that goes wrong somewhere over many hits: collect_values (a table of values per hit, without stopping).
To fix Lua code without a restart: edit the file, hot_reload_file, continue_debugging, then get_output.
session_id is optional everywhere: the active session by default.
Statuses: success, error (read message), stopped, completed (program ended), timeout (still running: wait again or pause_debugging), interrupted (someone else acted: get_debug_state).`;

export function createMcpServer(context: ToolContext): McpServer {
  const server = new McpServer(
    { name: SERVER_NAME, version: PACKAGE_VERSION, title: 'LuaPanda MCP Debugger' },
    { instructions: INSTRUCTIONS, capabilities: { logging: {} } },
  );
  for (const tool of TOOLS) registerTool(server, tool, context);
  // Our own tools/list (portable schemas, toolListing.ts) in place of the SDK's; registerTool set
  // the SDK's once, and calls, input and output validation stay the SDK's.
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolListing() }));
  registerPrompts(server);
  return server;
}

let cachedListing: Tool[] | undefined;

/** The same for every session: made once. */
function toolListing(): Tool[] {
  cachedListing ??= listTools(TOOLS);
  return cachedListing;
}

function registerTool(
  server: McpServer,
  tool: ToolDefinition<z.ZodRawShape>,
  context: ToolContext,
): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: { title: tool.title, ...tool.annotations },
    },
    async (args: Record<string, unknown>, extra) => {
      const progressToken = extra._meta?.progressToken;
      let step = 0;
      const extras: CallExtras = {
        signal: extra.signal,
        progress: (message) => {
          if (progressToken === undefined || extra.signal.aborted) return;
          extra
            .sendNotification({
              method: 'notifications/progress',
              params: { progressToken, progress: ++step, message },
            })
            .catch(() => undefined);
        },
      };
      const tracer = context.tracer ?? getProcessTracer();
      tracer.log('mcp.call', () => `→ ${tool.name} ${JSON.stringify(args)}`);
      let result;
      try {
        result = await tool.handler(args, context, extras);
      } catch (e) {
        result = error('unexpected', `${tool.name} failed unexpectedly: ${(e as Error).message}`);
      }
      tracer.log('mcp.call', () => `← ${tool.name} ${JSON.stringify(result)}`);
      return toCallToolResult(result);
    },
  );
}
