/**
 * The tool-call log: the real MCP server of the headless backend and the SDK's client over
 * Streamable HTTP; the observer sees each call's tool, arguments, status and duration.
 */
import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createHeadlessBackend } from '../../src/cli/headlessBackend';
import {
  ToolCallEnd,
  formatToolCall,
  observeToolCalls,
} from '../../src/extension/agentTools/toolCallLog';
import { HttpServerHandle, startHttpServer } from '../../src/mcp/transport/http';

describe('extension: the log of agent tool calls', () => {
  const backend = createHeadlessBackend({ workspaceFolder: os.tmpdir() });
  const started: string[] = [];
  const ended: ToolCallEnd[] = [];
  let http: HttpServerHandle;
  let client: Client;

  before(async () => {
    http = await startHttpServer({
      port: 0,
      ipv6: false,
      createServer: () =>
        observeToolCalls(backend.createServer(), {
          started: (call) => void started.push(call.tool),
          ended: (call) => void ended.push(call),
        }),
    });
    client = new Client({ name: 'log-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  });

  after(async () => {
    await client.close();
    await http.close();
    await backend.dispose();
  });

  it('records tool, arguments, status and duration of each call', async () => {
    await client.callTool({ name: 'get_breakpoints', arguments: {} });
    await client.callTool({ name: 'stop_debugging', arguments: {} });
    await client.callTool({
      name: 'set_breakpoint',
      arguments: { file_path: '/nonexistent/x.lua', line_number: 3 },
    });
    assert.deepEqual(started, ['get_breakpoints', 'stop_debugging', 'set_breakpoint']);
    assert.deepEqual(
      ended.map((c) => [c.tool, c.status]),
      [
        ['get_breakpoints', 'success'],
        ['stop_debugging', 'error'],
        ['set_breakpoint', 'error'],
      ],
    );
    assert.deepEqual(ended[2].args, { file_path: '/nonexistent/x.lua', line_number: 3 });
    assert.ok(ended.every((c) => c.durationMs >= 0 && c.durationMs < 10_000));
  });

  it('formats one line per call, bounding long arguments', () => {
    const line = formatToolCall({
      tool: 'evaluate_expression',
      args: { expression: 'x'.repeat(500) },
      startedAt: 0,
      status: 'success',
      durationMs: 12,
    });
    assert.ok(line.startsWith('evaluate_expression {"expression":"xxxx'));
    assert.ok(line.endsWith('… → success (12 ms)'));
    assert.ok(line.length < 360);
  });
});
