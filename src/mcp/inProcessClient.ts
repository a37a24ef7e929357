/**
 * An MCP client joined to one of our MCP servers inside the same process (the SDK's in-memory
 * transport). Other front ends — VS Code's language-model tools, the manifest generator — reach
 * the tools through it, so they get exactly what an MCP client gets: the same listing, the same
 * argument validation, the same results and errors, cancellation as `notifications/cancelled`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { PACKAGE_VERSION } from '../common/version';

/**
 * The SDK gives up on a request after 60 s by default; our asynchronous tools wait up to their
 * own `timeout_seconds` (at most an hour), so the client waits longer than any tool can.
 */
const CALL_TIMEOUT_MS = 3_700_000;

export interface InProcessClient {
  listTools(): Promise<Tool[]>;
  /** Calls a tool; rejects when `signal` aborts (the server is told to cancel the call). */
  callTool(
    name: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function connectInProcess(
  server: McpServer,
  clientName: string,
): Promise<InProcessClient> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: clientName, version: PACKAGE_VERSION });
  await server.connect(serverSide);
  await client.connect(clientSide);
  return {
    async listTools() {
      const tools: Tool[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? undefined : { cursor });
        tools.push(...page.tools);
        cursor = page.nextCursor;
      } while (cursor !== undefined);
      return tools;
    },
    async callTool(name, args, signal) {
      const result = await client.callTool({ name, arguments: args }, undefined, {
        signal,
        timeout: CALL_TIMEOUT_MS,
      });
      return result as CallToolResult;
    },
    async close() {
      await client.close();
      await server.close();
    },
  };
}
