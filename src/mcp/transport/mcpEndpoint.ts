/**
 * The `/mcp` endpoint of the HTTP server: an `initialize` without a session id opens a session (its
 * own SDK transport and McpServer), a request with one is served by that session's transport, and
 * the session table learns what each session is doing. Requests reach it already checked (Host,
 * Origin, bearer token); it bounds and parses the bodies it reads.
 */
import type * as http from 'node:http';
import { randomUUID } from 'node:crypto';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  isInitializeRequest,
  isJSONRPCNotification,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { refuse, sendJsonRpcError } from './httpReplies';
import { readJsonBody, type BodyRead } from './jsonBody';
import type { McpSessionTable, TrackedSession } from './mcpSessionTable';

export interface McpEndpointOptions {
  /** Makes the McpServer of one session; called once per session. */
  createServer: () => McpServer;
  sessions: McpSessionTable<StreamableHTTPServerTransport>;
  /** Bound on a request body in bytes (larger → 413). */
  maxBodyBytes: number;
  log: (line: string) => void;
}

/** Serves requests to `/mcp`. */
export type McpEndpoint = (req: http.IncomingMessage, res: http.ServerResponse) => Promise<void>;

export function mcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const { createServer, sessions, maxBodyBytes, log } = options;

  const readBody = (req: http.IncomingMessage, res: http.ServerResponse): Promise<BodyRead> =>
    readJsonBody(req, maxBodyBytes, (seen) =>
      refuse(
        log,
        req,
        res,
        413,
        `request body (${seen}) exceeds the limit of ${maxBodyBytes} bytes`,
        `Payload Too Large: request body must not exceed ${maxBodyBytes} bytes`,
        // Close the connection after the answer rather than read the rest of an oversized body.
        { Connection: 'close' },
      ),
    ).then((read) => {
      if (!read.ok && read.parseError) {
        sendJsonRpcError(res, 400, -32700, 'Parse error: the body is not valid JSON');
      }
      return read;
    });

  async function startSession(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    body: unknown,
  ): Promise<void> {
    let opened = false;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: maxBodyBytes,
      onsessioninitialized: (id) => {
        opened = true;
        sessions.add(id, transport);
      },
    });
    // Set before connect(): the SDK chains its own onclose after ours.
    transport.onclose = () => {
      const id = transport.sessionId;
      if (id !== undefined) sessions.remove(id, transport);
    };
    const server = createServer();
    await server.connect(transport);
    try {
      await transport.handleRequest(req, res, body);
    } finally {
      if (!opened) {
        // The initialize request was refused (bad protocol version, …): nothing will reach it again.
        await server.close().catch(() => undefined);
      }
    }
  }

  async function serveInSession(
    session: TrackedSession<StreamableHTTPServerTransport>,
    req: http.IncomingMessage,
    res: http.ServerResponse,
    body: unknown,
  ): Promise<void> {
    // GET opens the session's standalone event stream; it stays open as long as the client is
    // there (and the SDK's client re-opens it when it drops), so it is not a request in flight.
    const ended = sessions.begin(session, req.method === 'GET' ? 'stream' : 'request');
    // 200: it was an event stream (not a refusal such as 409, a second stream).
    res.once('close', () => ended(res.statusCode === 200));
    await session.transport.handleRequest(req, res, body);
    // A cancelled request never gets a response (the specification says so), and the SDK then
    // keeps its event stream, and the client's connection, open until the session ends: end it.
    for (const requestId of cancelledRequestIds(body)) {
      session.transport.closeSSEStream(requestId);
    }
  }

  return async (req, res) => {
    if (req.method === 'OPTIONS') {
      // No CORS: a preflight gets no Access-Control-Allow-* header, so browsers stay out.
      res.writeHead(204, { Allow: 'GET, POST, DELETE' });
      res.end();
      return;
    }
    if (req.method !== 'POST' && req.method !== 'GET' && req.method !== 'DELETE') {
      sendJsonRpcError(res, 405, -32000, 'Method not allowed', { Allow: 'GET, POST, DELETE' });
      return;
    }

    const sessionHeader = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(sessionHeader) ? sessionHeader[0] : sessionHeader;
    if (sessionId !== undefined) {
      const session = sessions.get(sessionId);
      if (!session) {
        // The specification: an unknown or ended session is 404, and the client starts anew.
        sendJsonRpcError(res, 404, -32001, 'Session not found');
        return;
      }
      let body: unknown;
      if (req.method === 'POST') {
        const read = await readBody(req, res);
        if (!read.ok) return;
        body = read.value;
      }
      await serveInSession(session, req, res, body);
      return;
    }

    if (req.method !== 'POST') {
      sendJsonRpcError(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
      return;
    }
    const read = await readBody(req, res);
    if (!read.ok) return;
    const messages: unknown[] = Array.isArray(read.value) ? read.value : [read.value];
    if (!messages.some((message) => isInitializeRequest(message))) {
      sendJsonRpcError(
        res,
        400,
        -32000,
        'Bad Request: no Mcp-Session-Id header; the first request of a session must be initialize',
      );
      return;
    }
    await startSession(req, res, read.value);
  };
}

/** The ids named by the `notifications/cancelled` messages of a POST body. */
function cancelledRequestIds(body: unknown): RequestId[] {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  const ids: RequestId[] = [];
  for (const message of messages) {
    if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof id === 'string' || typeof id === 'number') ids.push(id);
    }
  }
  return ids;
}
