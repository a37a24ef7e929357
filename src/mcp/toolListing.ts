/**
 * The `tools/list` result, with schemas every MCP host accepts. The SDK's own listing converts
 * zod to JSON Schema with a root `$schema` (Gemini's function declarations refuse it) and zod's
 * safe-integer bounds on every integer; this listing converts the same zod shapes the SDK validates
 * with, and removes just those two. Everything else that makes a schema portable is said in the
 * zod shapes themselves (optional fields rather than null unions, `minimum` rather than
 * `exclusiveMinimum`, id bounds: schemaIds.ts).
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ToolDefinition } from './tools/context';

type JsonSchema = Record<string, unknown>;

/**
 * A zod object shape as a portable JSON Schema. Both input and output schemas are converted as
 * zod *accepts* values (io "input"): a result may carry a field the schema does not list (zod's
 * objects accept and strip extra keys), so no `additionalProperties: false` is claimed.
 */
export function portableJsonSchema(shape: z.ZodRawShape): Tool['inputSchema'] {
  const schema = z.toJSONSchema(z.object(shape), { target: 'draft-07', io: 'input' }) as JsonSchema;
  delete schema.$schema;
  dropSafeIntegerBounds(schema);
  return schema as Tool['inputSchema'];
}

/** The listing of `tools`, in their order, as `tools/list` returns it. */
export function listTools(tools: readonly ToolDefinition<z.ZodRawShape>[]): Tool[] {
  return tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: portableJsonSchema(tool.inputSchema),
    outputSchema: portableJsonSchema(tool.outputSchema),
    annotations: explicitHints(tool.annotations),
  }));
}

/** The MCP defaults of the tool hints (the specification's ToolAnnotations). */
const DEFAULT_HINTS: Record<string, boolean> = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/** The hints that say something: a hint equal to its MCP default is left out, and so are
 * destructiveHint and idempotentHint of a read-only tool (the specification: meaningful only when
 * readOnlyHint is false). */
function explicitHints(annotations: ToolDefinition['annotations']): Tool['annotations'] {
  const hints: Record<string, boolean> = {};
  for (const [name, value] of Object.entries(annotations)) {
    if (annotations.readOnlyHint && (name === 'destructiveHint' || name === 'idempotentHint'))
      continue;
    if (DEFAULT_HINTS[name] !== value) hints[name] = value;
  }
  return hints;
}

/** zod bounds every `.int()` by ±(2^53 − 1): noise to a client, and bytes in every listing. */
function dropSafeIntegerBounds(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) dropSafeIntegerBounds(item);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const schema = node as JsonSchema;
  if (schema.type === 'integer') {
    if (schema.minimum === Number.MIN_SAFE_INTEGER) delete schema.minimum;
    if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum;
  }
  for (const value of Object.values(schema)) dropSafeIntegerBounds(value);
}
