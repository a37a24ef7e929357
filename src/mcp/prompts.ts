/**
 * The MCP prompts: ready-made plans an agent's user can pick — one for a bug whose place is
 * guessed (breakpoints, stepping), one for a bug whose place nobody can guess (collect values,
 * catch swallowed errors, see what changed). Text only: the agent runs the tools itself.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

export const DEBUG_PROMPT = `Debug this Lua problem with the LuaPanda MCP tools:

{problem}

Work like this:
1. Call get_debugger_configurations and choose the configuration that runs the failing code.
2. Form a hypothesis about where it goes wrong; set_breakpoint on the line just before that point (use a condition to skip uninteresting hits, or a log_message to trace values without stopping).
3. start_debugging. When it stops, read stop_event_data: the call stack and the top frame's locals often explain the bug already.
4. Step over/into to watch the values change; evaluate_expression to test ideas; get_variables to open tables.
5. If it ends ("completed") without stopping, read get_output and move the breakpoint earlier.
6. When you know the cause, stop_debugging, then explain the cause with the evidence you saw (values, lines), and propose a fix.`;

export const FIND_BUG_PROMPT = `Find the cause of this Lua bug with the LuaPanda MCP tools; where it happens is not known yet:

{symptom}

Pick the route that fits the symptom, and keep each call's result small:
- A value is wrong, but not where it goes wrong (a field one of many writers corrupts, a value that drifts over hundreds of frames): collect_values at a line or function that reads it, with the expressions that matter (and a condition when you can say what "wrong" looks like). Its summary says at which hit a value first differs from the one before; collect next at the code that writes it (search the sources for assignments to that field), or set_breakpoint there with a condition such as "self.hp < 0". At every stop, stop_event_data.changed lists what differs since the last stop in that function.
- An error that vanishes (logged and swallowed by a pcall, or only the engine sees it): start_debugging with exception_filters ["uncaught", "caught"] (set_exception_filters changes them in a running session). The stop's error_autopsy names the frame that raised it, the first frame of the program's own code, and for a caught error the pcall/xpcall line that swallowed it.
- An error with a message: exception_filters ["uncaught"]; error_autopsy.user_frames shows the locals and source lines of the first frames of the program's own code.
- A hang or a stall: start_debugging, then pause_debugging; get_debug_state lists the coroutines and where each one waits.
Then confirm the cause with one breakpoint at that spot, fix the file, hot_reload_file, continue_debugging and read get_output. Finish with stop_debugging and explain the cause with the values and lines you saw.`;

/** Registers the prompts on `server`. */
export function registerPrompts(server: McpServer): void {
  server.registerPrompt(
    'debug_lua_problem',
    {
      title: 'Debug a Lua problem',
      description:
        'A step-by-step workflow for finding the cause of a bug in a Lua program with the debugger tools.',
      argsSchema: {
        problem: z
          .string()
          .describe('What goes wrong: the symptom, the error message, where you suspect it.'),
      },
    },
    ({ problem }) => userMessage(DEBUG_PROMPT.replace('{problem}', problem)),
  );
  server.registerPrompt(
    'find_bug',
    {
      title: 'Find a bug whose place is unknown',
      description:
        'A plan for a bug nobody can place: a value corrupted somewhere, one that goes wrong after ' +
        'many frames, an error swallowed by a pcall — collect values, catch the error, see what changed.',
      argsSchema: {
        symptom: z
          .string()
          .describe('What is seen: the wrong value or behaviour, when it shows, any message.'),
      },
    },
    ({ symptom }) => userMessage(FIND_BUG_PROMPT.replace('{symptom}', symptom)),
  );
}

function userMessage(text: string) {
  return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
}
