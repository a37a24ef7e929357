/**
 * `npm run demo`: an AI agent's session, played by the MCP SDK's own client against headless
 * `luapanda-mcp` (over stdio) on the example game in examples/game. It lists the configurations,
 * sets a breakpoint, starts the game, reads the stop and the variables, evaluates, steps,
 * continues to the end and reads the output — printing every call and its result.
 */
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = path.resolve(__dirname, '..', '..');
const WORKSPACE = path.join(ROOT, 'examples', 'game');
const MAX_PRINT = 1800;

type Result = Record<string, unknown> & { status?: string };

async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<Result> {
  console.log(`\n→ ${name} ${JSON.stringify(args)}`);
  const response = await client.callTool({ name, arguments: args });
  const result = (response.structuredContent ?? {}) as Result;
  const text = JSON.stringify(result, null, 2);
  console.log(
    `← ${text.length > MAX_PRINT ? `${text.slice(0, MAX_PRINT)}\n  … (${text.length} chars)` : text}`,
  );
  return result;
}

function expectStatus(result: Result, ...statuses: string[]): void {
  if (!statuses.includes(String(result.status))) {
    throw new Error(
      `expected status ${statuses.join(' or ')}, got ${result.status}: ${String(result.message ?? '')}`,
    );
  }
}

async function main(): Promise<void> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(ROOT, 'out', 'src', 'cli', 'mcp.js'), '--stdio', '--workspace', WORKSPACE],
    stderr: 'inherit',
  });
  const client = new Client({ name: 'luapanda-demo', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    console.log(
      `Connected to ${client.getServerVersion()?.name} ${client.getServerVersion()?.version}: ${tools.length} tools`,
    );
    console.log(tools.map((t) => `  ${t.name}`).join('\n'));

    const configs = await call(client, 'get_debugger_configurations');
    expectStatus(configs, 'success');

    // The bug: poisoned entities never die. Stop where poison is applied, but only for one that is poisoned.
    const bp = await call(client, 'set_breakpoint', {
      file_path: 'entity.lua',
      line_number: 14,
      condition: 'self.poison > 0',
    });
    expectStatus(bp, 'success');

    const stop = await call(client, 'start_debugging', {
      configuration_name: 'Launch the game',
      timeout_seconds: 30,
    });
    expectStatus(stop, 'stopped');
    const data = stop.stop_event_data as { thread_id: number; call_stack: { frame_id: number }[] };
    const frameId = data.call_stack[0].frame_id;

    const scopes = await call(client, 'get_scopes', { frame_id: frameId });
    expectStatus(scopes, 'success');
    const locals = (scopes.scopes as { name: string; variables_reference: number }[])[0];
    await call(client, 'get_variables', { variables_reference: locals.variables_reference });

    await call(client, 'evaluate_expression', {
      expression: 'self.hp - damage',
      frame_id: frameId,
      context: 'watch',
    });

    const stepped = await call(client, 'step_execution', {
      thread_id: data.thread_id,
      step_type: 'over',
    });
    expectStatus(stepped, 'stopped');
    const after = stepped.stop_event_data as { call_stack: { frame_id: number }[] };
    await call(client, 'evaluate_expression', {
      expression: 'self.hp',
      frame_id: after.call_stack[0].frame_id,
      context: 'watch',
    });

    await call(client, 'remove_breakpoint', { clear_all: true });
    const end = await call(client, 'continue_debugging', { thread_id: data.thread_id });
    expectStatus(end, 'completed');

    await call(client, 'get_output');
    console.log(
      '\nThe agent saw hp grow after the poison step: `self.hp + damage` should be `self.hp - damage`.',
    );
  } finally {
    await client.close();
  }
}

main().catch((error: unknown) => {
  console.error(`demo failed: ${(error as Error).message}`);
  process.exitCode = 1;
});
