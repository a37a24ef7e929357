#!/usr/bin/env node
// An MCP client outside VS Code, for the extension-host tests: the official SDK client over
// Streamable HTTP calls one tool and prints the tool's structured result as JSON on stdout.
//   node scripts/e2e/mcpCall.mjs <url> <tool> [json-arguments] [token]
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

export async function callTool(url, tool, args = {}, token) {
  const client = new Client({ name: 'luapanda-e2e', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
  });
  await client.connect(transport);
  try {
    const result = await client.callTool({ name: tool, arguments: args }, undefined, {
      timeout: 120_000,
    });
    return result.structuredContent ?? JSON.parse(result.content?.[0]?.text ?? 'null');
  } finally {
    await transport.terminateSession().catch(() => undefined);
    await client.close();
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const [url, tool, json, token] = process.argv.slice(2);
  callTool(url, tool, json ? JSON.parse(json) : {}, token).then(
    (result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (error) => {
      process.stderr.write(`mcpCall: ${error.stack ?? error}\n`);
      process.exit(1);
    },
  );
}
