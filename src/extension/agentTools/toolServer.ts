/**
 * The one factory of MCP servers inside VS Code, for every way in (the HTTP server, the
 * language-model tools): one tool context over VS Code's debug sessions, the code-execution
 * policy from the settings, and every tool call written to the log.
 */
import type * as vscode from 'vscode';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { createMcpServer } from '../../mcp/server';
import { SessionMonitor } from '../../mcp/sessionMonitor';
import { ToolContext, ToolSettings } from '../../mcp/tools/context';
import { createApprover } from './approval';
import { readSettings } from '../settings';
import { formatToolCall, observeToolCalls } from './toolCallLog';
import { VscodeDebugChannel } from './vscodeChannel';

export interface ToolServerParts {
  readonly channel: VscodeDebugChannel;
  readonly monitor: SessionMonitor;
  readonly log: vscode.LogOutputChannel;
}

export function toolServerFactory({ channel, monitor, log }: ToolServerParts): () => McpServer {
  // Getters: a tool reads the setting as it is when called, not as it was at activation.
  const settings: ToolSettings = {
    get defaultTimeoutSeconds() {
      return readSettings().defaultTimeoutSeconds;
    },
    get allowOutsideWorkspace() {
      return readSettings().allowOutsideWorkspace;
    },
  };
  const toolContext: ToolContext = {
    channel,
    monitor,
    settings,
    approve: createApprover(
      () => readSettings().codeExecution,
      (line) => log.info(line),
    ),
  };
  const observer = {
    started: (): void => {},
    ended: (call: Parameters<typeof formatToolCall>[0]): void => {
      log.info(`[agent] ${formatToolCall(call)}`);
    },
  };
  return () => observeToolCalls(createMcpServer(toolContext), observer);
}
