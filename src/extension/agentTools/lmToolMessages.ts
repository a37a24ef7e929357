/**
 * What VS Code's language-model tools say, without VS Code: the text a tool call returns to the
 * model (the MCP result's text, as an MCP client reads it) and the one-line summary of a call
 * shown while it runs and in its confirmation.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * The MCP result as text: its text parts (our tools put the result's JSON there), or the
 * structured content as JSON when a result carries no text.
 */
export function resultText(result: CallToolResult): string {
  const texts = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : []));
  if (texts.length > 0) return texts.join('\n');
  if (result.structuredContent !== undefined) return JSON.stringify(result.structuredContent);
  return JSON.stringify({ status: result.isError ? 'error' : 'success' });
}

/** Arguments that say nothing about what a call does, left out of its summary. */
const QUIET_ARGS = new Set(['timeout_seconds', 'session_id']);

/** `Set breakpoint (file_path: main.lua, line_number: 12)`: the title and the telling arguments. */
export function callSummary(title: string, input: unknown): string {
  const parts: string[] = [];
  if (input && typeof input === 'object') {
    for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
      if (QUIET_ARGS.has(key) || value === undefined || value === null) continue;
      const shown = typeof value === 'string' ? value : JSON.stringify(value);
      parts.push(`${key}: ${shown.length > 80 ? `${shown.slice(0, 77)}...` : shown}`);
    }
  }
  return parts.length > 0 ? `${title} (${parts.join(', ')})` : title;
}
