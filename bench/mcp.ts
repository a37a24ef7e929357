/**
 * MCP figures, measured in one run with the SDK's client over Streamable HTTP against headless
 * luapanda-mcp and a real Lua program: the round trip of a cheap tool (`get_breakpoints`), the
 * latency of an agent's step (`step_execution` until `stopped`), both as p50/p99, and the size of a
 * typical `stop_event_data`.
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHeadlessBackend } from '../src/cli/headlessBackend';
import { startHttpServer } from '../src/mcp/transport/http';
import { printTable } from './protocol';

const PROGRAM = `-- a long loop to step through
local total = 0
for i = 1, 1000000 do
  total = total + i
  local half = total / 2
end
print(total)
`;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function runMcpBench(lua = 'lua5.4', roundTrips = 300, steps = 200): Promise<void> {
  const workspace = await fs.mkdtemp(path.join(os.tmpdir(), 'luapanda-bench-'));
  await fs.writeFile(path.join(workspace, 'loop.lua'), PROGRAM);
  await fs.mkdir(path.join(workspace, '.vscode'));
  await fs.writeFile(
    path.join(workspace, '.vscode', 'launch.json'),
    JSON.stringify({
      configurations: [
        {
          type: 'luapanda',
          request: 'launch',
          name: 'loop',
          program: '${workspaceFolder}/loop.lua',
          luaPath: lua,
        },
      ],
    }),
  );
  const backend = createHeadlessBackend({ workspaceFolder: workspace });
  const http = await startHttpServer({
    createServer: () => backend.createServer(),
    port: 0,
    workspace,
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
    await client.listTools();
    const call = async (name: string, args: Record<string, unknown> = {}) =>
      (await client.callTool({ name, arguments: args })).structuredContent as Record<
        string,
        unknown
      >;

    for (let i = 0; i < 20; i++) await call('get_breakpoints'); // warm-up
    const roundTrip: number[] = [];
    for (let i = 0; i < roundTrips; i++) {
      const start = performance.now();
      await call('get_breakpoints');
      roundTrip.push(performance.now() - start);
    }

    await call('set_breakpoint', { file_path: 'loop.lua', line_number: 4 });
    const first = await call('start_debugging', { configuration_name: 'loop' });
    if (first.status !== 'stopped') throw new Error(`start_debugging: ${JSON.stringify(first)}`);
    const stopSize = Buffer.byteLength(JSON.stringify(first.stop_event_data));
    await call('remove_breakpoint', { clear_all: true });
    const threadId = (first.stop_event_data as { thread_id: number }).thread_id;
    const stepLatency: number[] = [];
    for (let i = 0; i < steps; i++) {
      const start = performance.now();
      const result = await call('step_execution', { thread_id: threadId, step_type: 'over' });
      stepLatency.push(performance.now() - start);
      if (result.status !== 'stopped') throw new Error(`step ${i}: ${JSON.stringify(result)}`);
    }
    await call('stop_debugging');

    console.log(`\nMCP over Streamable HTTP (SDK client → headless luapanda-mcp → ${lua}), in ms`);
    printTable([
      ['measure', 'runs', 'p50', 'p99'],
      [
        'tool round trip (get_breakpoints)',
        String(roundTrips),
        percentile(roundTrip, 50).toFixed(2),
        percentile(roundTrip, 99).toFixed(2),
      ],
      [
        'agent step (step_execution → stopped)',
        String(steps),
        percentile(stepLatency, 50).toFixed(2),
        percentile(stepLatency, 99).toFixed(2),
      ],
    ]);
    console.log(
      `typical stop_event_data (a breakpoint in a loop, 4 locals, 1 frame): ${stopSize} bytes`,
    );
  } finally {
    await client.close().catch(() => undefined);
    await backend.dispose();
    await http.close();
    await fs.rm(workspace, { recursive: true, force: true });
  }
}

if (require.main === module) void runMcpBench();
