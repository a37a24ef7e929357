/**
 * Watches the agent's tool calls on an MCP server at the JSON-RPC level — each `tools/call`
 * request and its response (or its cancellation) — so that VS Code can show the human what the
 * agent does: tool, arguments, resulting status and duration. Nothing in the MCP layer changes.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

export interface ToolCallStart {
  readonly tool: string;
  readonly args: unknown;
  readonly startedAt: number;
}

export interface ToolCallEnd extends ToolCallStart {
  /** The result's `status` (`success`, `stopped`, …), `error`, or `cancelled`. */
  readonly status: string;
  readonly durationMs: number;
}

export interface ToolCallObserver {
  started(call: ToolCallStart): void;
  ended(call: ToolCallEnd): void;
}

/** Makes `server` report its tool calls to `observer`; returns the same server. */
export function observeToolCalls(server: McpServer, observer: ToolCallObserver): McpServer {
  const connect = server.connect.bind(server);
  server.connect = async (transport: Transport) => {
    await connect(transport);
    const pending = new Map<RequestId, ToolCallStart>();
    const finish = (id: RequestId, status: string): void => {
      const call = pending.get(id);
      if (!call) return;
      pending.delete(id);
      safely(() => observer.ended({ ...call, status, durationMs: Date.now() - call.startedAt }));
    };
    const onmessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const m = message as { id?: RequestId; method?: string; params?: Record<string, unknown> };
      if (m.method === 'tools/call' && m.id !== undefined) {
        const call: ToolCallStart = {
          tool: String(m.params?.name ?? '?'),
          args: m.params?.arguments ?? {},
          startedAt: Date.now(),
        };
        pending.set(m.id, call);
        safely(() => observer.started(call));
      } else if (m.method === 'notifications/cancelled') {
        const id = (m.params as { requestId?: RequestId } | undefined)?.requestId;
        if (id !== undefined) finish(id, 'cancelled');
      }
      onmessage?.(message, extra);
    };
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options) => {
      const m = message as { id?: RequestId; result?: unknown; error?: unknown; method?: string };
      if (m.id !== undefined && m.method === undefined && pending.has(m.id)) {
        finish(m.id, m.error !== undefined ? 'error' : statusOf(m.result));
      }
      return send(message, options);
    };
    const onclose = transport.onclose;
    transport.onclose = () => {
      for (const id of [...pending.keys()]) finish(id, 'cancelled');
      onclose?.();
    };
  };
  return server;
}

function statusOf(result: unknown): string {
  const r = result as { isError?: boolean; structuredContent?: { status?: unknown } } | undefined;
  const status = r?.structuredContent?.status;
  if (typeof status === 'string') return status;
  return r?.isError ? 'error' : 'success';
}

function safely(action: () => void): void {
  try {
    action();
  } catch {
    // an observer's failure must never break the agent's call
  }
}

/** One line for the log: `set_breakpoint {"file_path":"a.lua"} → success (12 ms)`. */
export function formatToolCall(call: ToolCallEnd, maxArgs = 300): string {
  let args = JSON.stringify(call.args) ?? '';
  if (args.length > maxArgs) args = `${args.slice(0, maxArgs)}…`;
  return `${call.tool} ${args} → ${call.status} (${call.durationMs} ms)`;
}
