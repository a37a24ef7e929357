/**
 * The tool schemas every MCP host accepts: read from a real `tools/list` through the official SDK
 * client, every input and output schema is walked for what hosts reject or warn about (a root
 * `$schema`, `exclusiveMinimum` — Gemini's function declarations refuse both —, type arrays and
 * null unions, an empty `additionalProperties`, id fields that accept negative numbers), and the
 * whole listing must stay small enough for a client's context.
 */
import * as assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { HeadlessFixture, makeWorkspace } from './headlessFixture';

/** The bound the contract (mcp-tools.md) sets on the whole `tools/list` result. */
const MAX_TOOLS_LIST_BYTES = 16 * 1024;

/** Integer fields that hold an id or a reference (0 allowed where 0 means "none"). */
const ID_FIELD = /(^|_)(id|ids|reference|frame)$|^(thread_id|frame_id|breakpoint_id)$/;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

interface SchemaNode {
  /** Where the node is, e.g. `start_debugging.output.stop_event_data.thread_id`. */
  where: string;
  /** The name of the property this schema describes (or of the array holding it). */
  name: string;
  schema: JsonObject;
}

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every subschema of a schema (properties, items, combinators, definitions), with its place. */
function walk(schema: JsonObject, where: string, name = ''): SchemaNode[] {
  const nodes: SchemaNode[] = [{ where, name, schema }];
  const properties = schema.properties;
  if (isObject(properties)) {
    for (const [key, value] of Object.entries(properties)) {
      if (isObject(value)) nodes.push(...walk(value, `${where}.${key}`, key));
    }
  }
  for (const key of ['items', 'additionalProperties', 'not'] as const) {
    const value = schema[key];
    if (isObject(value)) nodes.push(...walk(value, `${where}[${key}]`, name));
  }
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) {
      list.forEach((value, i) => {
        if (isObject(value)) nodes.push(...walk(value, `${where}.${key}[${i}]`, name));
      });
    }
  }
  for (const key of ['definitions', '$defs'] as const) {
    const defs = schema[key];
    if (isObject(defs)) {
      for (const [defName, value] of Object.entries(defs)) {
        if (isObject(value)) nodes.push(...walk(value, `${where}.${key}.${defName}`, defName));
      }
    }
  }
  return nodes;
}

/** What a portable schema node must not contain. */
function portabilityProblems(node: SchemaNode): string[] {
  const { schema, where, name } = node;
  const problems: string[] = [];
  if ('exclusiveMinimum' in schema || 'exclusiveMaximum' in schema) {
    problems.push(`${where}: exclusiveMinimum/Maximum (use minimum/maximum)`);
  }
  if (Array.isArray(schema.type))
    problems.push(`${where}: type array ${JSON.stringify(schema.type)}`);
  if (schema.type === 'null') problems.push(`${where}: a null type`);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list) && list.some((s) => isObject(s) && s.type === 'null')) {
      problems.push(`${where}: a null union in ${key}`);
    }
  }
  const additional = schema.additionalProperties;
  if (isObject(additional) && Object.keys(additional).length === 0) {
    problems.push(`${where}: empty additionalProperties {}`);
  }
  if (schema.type === 'integer' || schema.type === 'number') {
    if (ID_FIELD.test(name) && !(typeof schema.minimum === 'number' && schema.minimum >= 0)) {
      problems.push(`${where}: id field "${name}" without a minimum ≥ 0`);
    }
  }
  return problems;
}

describe('MCP tool schemas are portable across hosts', function () {
  this.timeout(60_000);
  let fixture: HeadlessFixture;
  let client: Client;
  let tools: Array<{ name: string; inputSchema: JsonObject; outputSchema?: JsonObject }>;
  let listingBytes: number;

  before(async () => {
    const workspace = await makeWorkspace({}, []);
    fixture = await HeadlessFixture.start(workspace);
    client = await fixture.connect();
    const result = await client.listTools();
    listingBytes = Buffer.byteLength(JSON.stringify(result));
    tools = result.tools as unknown as typeof tools;
  });

  after(() => fixture.close());

  it('lists tools with input and output schemas', () => {
    assert.ok(tools.length >= 16, `${tools.length} tools`);
    for (const tool of tools) {
      assert.equal(tool.inputSchema.type, 'object', tool.name);
      assert.equal(tool.outputSchema?.type, 'object', tool.name);
    }
  });

  it('has no $schema anywhere (Gemini refuses it at the root)', () => {
    for (const tool of tools) {
      for (const [kind, schema] of [
        ['input', tool.inputSchema],
        ['output', tool.outputSchema ?? {}],
      ] as const) {
        assert.equal(JSON.stringify(schema).includes('"$schema"'), false, `${tool.name} ${kind}`);
      }
    }
  });

  it('has no exclusiveMinimum, null unions, type arrays or empty additionalProperties, and ids have a minimum', () => {
    const problems: string[] = [];
    let nodes = 0;
    for (const tool of tools) {
      for (const [kind, schema] of [
        ['input', tool.inputSchema],
        ['output', tool.outputSchema ?? {}],
      ] as const) {
        for (const node of walk(schema, `${tool.name}.${kind}`)) {
          nodes++;
          problems.push(...portabilityProblems(node));
        }
      }
    }
    assert.ok(nodes > 150, `walked ${nodes} schema nodes`);
    assert.deepEqual(problems, []);
  });

  it('keeps the whole tools/list result under 16 KB', () => {
    assert.ok(
      listingBytes < MAX_TOOLS_LIST_BYTES,
      `tools/list is ${listingBytes} bytes (limit ${MAX_TOOLS_LIST_BYTES})`,
    );
  });

  it('finds the problems it looks for (the checks can fail)', () => {
    const bad: SchemaNode[] = [
      { where: 'a', name: 'x', schema: { type: 'number', exclusiveMinimum: 0 } },
      { where: 'b', name: 'x', schema: { type: ['string', 'null'] } },
      { where: 'c', name: 'x', schema: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
      { where: 'd', name: 'x', schema: { type: 'object', additionalProperties: {} } },
      { where: 'e', name: 'frame_id', schema: { type: 'integer' } },
      { where: 'f', name: 'variables_reference', schema: { type: 'number' } },
      { where: 'g', name: 'thread_id', schema: { type: 'integer', minimum: -9007199254740991 } },
    ];
    assert.deepEqual(
      bad.map((node) => portabilityProblems(node).length),
      [1, 1, 1, 1, 1, 1, 1],
    );
    assert.deepEqual(
      portabilityProblems({
        where: 'g',
        name: 'frame_id',
        schema: { type: 'integer', minimum: 0 },
      }),
      [],
    );
  });
});
