/**
 * The MCP tools' failures as a catalogue: every error result carries a stable `code` (in its
 * structuredContent and its JSON text) that agents and tests match on, beside a message that says
 * what to do. The failures several tools share are factories here; a tool's own failure passes
 * its code and message together to `error` (results.ts).
 */
import type { ToolResult } from './results';

/** Every code an error result can carry, and when. */
export const MCP_ERRORS = {
  'no-session': 'no debug session is active, or none has the id given',
  'several-games': "the session given is an attach session with several games: pass a game's id",
  'not-paused': 'the tool reads a stopped program, and it is not stopped',
  'session-ended': 'the session ended with an error while the tool waited',
  'not-allowed': 'the user did not allow the agent this (evaluate or reload code)',
  'no-workspace': 'no workspace folder is open',
  'invalid-configuration': 'launch.json cannot be read, or has no configuration of that name',
  'invalid-arguments': 'the arguments do not fit together, or name what does not exist',
  'unknown-thread': 'no thread has the id given',
  'file-not-found': 'no such file, or not a file',
  'outside-workspace': 'the file is outside the workspace folders',
  'not-supported': 'the session or its debugger cannot do this',
  'start-failed': 'the debug session could not be started',
  'stop-failed': 'the debug session could not be stopped cleanly',
  'read-failed': 'the stack, scopes, variables or state could not be read',
  'evaluate-failed': 'the expression failed',
  'reload-failed': 'the hot reload could not be asked for',
  'debugger-error': 'the debugger refused or failed the request',
  unexpected: 'the tool failed unexpectedly (a bug)',
} as const;

export type McpErrorCode = keyof typeof MCP_ERRORS;

/** An error result: status `error`, its code and the message. */
export function error(code: McpErrorCode, message: string): ToolResult {
  return { status: 'error', code, message };
}

export function unknownSession(sessionId: string, known: string): ToolResult {
  return error('no-session', `No debug session with id "${sessionId}". Live sessions: ${known}.`);
}

/** A tool that acts on a game was given an attach session with several: it names them. */
export function severalGames(
  parent: { id: string; name: string },
  games: readonly { id: string; name: string }[],
): ToolResult {
  const list = games.map((g) => `${g.id} ("${g.name}")`).join(', ');
  return error(
    'several-games',
    `The session ${parent.id} ("${parent.name}") runs no program itself: ${games.length} games ` +
      `are attached to it, each a session of its own: ${list}. Pass one of those as session_id.`,
  );
}

export function noActiveSession(): ToolResult {
  return error(
    'no-session',
    'No debug session is active. Call start_debugging with a configuration name first.',
  );
}

export function notPaused(state: string): ToolResult {
  return error(
    'not-paused',
    `The program is not paused (state: ${state}). Variables, scopes and evaluation need a stopped program: ` +
      'wait for a breakpoint, or call pause_debugging.',
  );
}

export function notAllowed(what: 'evaluate' | 'reload'): ToolResult {
  return error(
    'not-allowed',
    `The user did not allow the agent to ${what} code in the debugged program.`,
  );
}

export function noWorkspace(what: string): ToolResult {
  return error('no-workspace', `No workspace folder is open, so there ${what}.`);
}
