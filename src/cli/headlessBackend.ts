/**
 * The headless composition: our DAP adapter run in process behind the MCP tools' debug channel,
 * for one workspace folder. Used by `luapanda-mcp` without VS Code, and by tests.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { LuaDebugSession } from '../adapter';
import { HeadlessChannel } from '../mcp/headless/headlessChannel';
import { createMcpServer } from '../mcp/server';
import { SessionMonitor } from '../mcp/sessionMonitor';
import { Approver, ToolContext, ToolSettings } from '../mcp/tools/context';

export const LUAPANDA_DEBUG_TYPE = 'luapanda';

export interface HeadlessBackendOptions {
  workspaceFolder: string;
  settings?: Partial<ToolSettings>;
  /** Asks before agent calls that run code in the program (none: they run). */
  approve?: Approver;
}

export interface HeadlessBackend {
  readonly context: ToolContext;
  readonly channel: HeadlessChannel;
  /** A fresh MCP server (one per MCP session) over this backend. */
  createServer(): McpServer;
  /** Interrupts every waiting call and ends every debug session. */
  dispose(): Promise<void>;
}

export function createHeadlessBackend(options: HeadlessBackendOptions): HeadlessBackend {
  const channel = new HeadlessChannel({
    workspaceFolder: options.workspaceFolder,
    createAdapter: (type) => (type === LUAPANDA_DEBUG_TYPE ? new LuaDebugSession() : undefined),
  });
  const monitor = new SessionMonitor(channel);
  const context: ToolContext = {
    channel,
    monitor,
    settings: {
      defaultTimeoutSeconds: options.settings?.defaultTimeoutSeconds ?? 30,
      allowOutsideWorkspace: options.settings?.allowOutsideWorkspace ?? false,
    },
    ...(options.approve ? { approve: options.approve } : {}),
  };
  return {
    context,
    channel,
    createServer: () => createMcpServer(context),
    async dispose() {
      monitor.dispose();
      await channel.dispose();
    },
  };
}
