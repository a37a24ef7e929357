/**
 * The `contributes.languageModelTools` entries of package.json, derived from the MCP tool listing
 * (`tools/list` of our server): VS Code must know a language-model tool from the manifest before
 * the extension registers it, and the manifest must say what the MCP server says — same names,
 * descriptions and input schemas. scripts/gen-lm-tools.ts writes them; a unit test checks them.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/** The setting that switches the language-model tools on and off (live). */
export const LM_TOOLS_SETTING = 'languageModelTools.enabled';
/** The `when` clause that hides the tools from the tool picker while the setting is off. */
export const LM_TOOLS_WHEN = `config.luapanda.${LM_TOOLS_SETTING}`;

export interface LmToolContribution {
  name: string;
  displayName: string;
  toolReferenceName: string;
  canBeReferencedInPrompt: boolean;
  icon: string;
  userDescription: string;
  modelDescription: string;
  tags: string[];
  when: string;
  inputSchema: Record<string, unknown>;
}

export function lmToolContributions(tools: readonly Tool[]): LmToolContribution[] {
  return tools.map((tool) => ({
    name: tool.name,
    displayName: tool.title ?? tool.name,
    // `#name` in a chat prompt: the MCP name, which the agent's instructions already use.
    toolReferenceName: tool.name,
    canBeReferencedInPrompt: true,
    icon: '$(debug-alt)',
    userDescription: firstSentence(tool.description ?? tool.name),
    modelDescription: tool.description ?? tool.name,
    tags: ['luapanda', 'debug', 'lua', changesState(tool) ? 'changes-state' : 'read-only'],
    when: LM_TOOLS_WHEN,
    inputSchema: withoutRootSchemaKey(tool.inputSchema),
  }));
}

/** Whether a call changes the debugger's or the program's state (asks before it runs). */
export function changesState(tool: Pick<Tool, 'annotations'>): boolean {
  return tool.annotations?.readOnlyHint !== true;
}

/** The schema without a root `$schema` key, a dialect marker the manifest has no use for. */
export function withoutRootSchemaKey(schema: Tool['inputSchema']): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...schema };
  delete copy.$schema;
  return copy;
}

function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  return end < 0 ? text : text.slice(0, end + 1);
}
