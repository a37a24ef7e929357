/**
 * The tool listing (`tools/list`) of our MCP server, read through a real MCP client over a
 * backend with no session: what every MCP client sees, whatever the schema conversion does.
 */
import * as os from 'node:os';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { connectInProcess } from '../mcp/inProcessClient';
import { createHeadlessBackend } from './headlessBackend';

export async function listServerTools(): Promise<Tool[]> {
  // Listing starts nothing and reads no file, so any folder will do.
  const backend = createHeadlessBackend({ workspaceFolder: os.tmpdir() });
  const client = await connectInProcess(backend.createServer(), 'luapanda-tool-listing');
  try {
    return await client.listTools();
  } finally {
    await client.close();
    await backend.dispose();
  }
}
