/**
 * The MCP server's Streamable HTTP transport: `http://127.0.0.1:<port>/mcp` on loopback only, one
 * stateful MCP session (and one McpServer from `createServer()`) per client, with the local-server
 * protections the MCP specification asks for (Host and Origin checks against DNS rebinding, no
 * wildcard CORS, bounded request bodies, an optional bearer token) and a `/health` probe that tells
 * which LuaPanda MCP server (which VS Code window) answers on the port.
 */
import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import * as http from 'node:http';
import type { Socket } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  isInitializeRequest,
  isJSONRPCNotification,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { withTimeout } from '../../common/async';
import { PACKAGE_VERSION } from '../../common/version';

/** The port of `luapanda.mcp.port` when nothing else is configured. */
export const DEFAULT_MCP_PORT = 6009;
/** The path of the MCP endpoint. */
export const MCP_PATH = '/mcp';
/** The name `/health` reports, so that a probe can tell our server from another program. */
export const HEALTH_SERVER_NAME = 'luapanda-mcp';
/** Default bound on a request body (the SDK's own default too). */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface HttpServerOptions {
  /** Makes the McpServer of one MCP session; called once per session (all share one backend). */
  createServer: () => McpServer;
  /** TCP port on 127.0.0.1 and ::1; default 6009; 0 picks a free port (tests). */
  port?: number;
  /** When set (non-empty), every request except `/health` and `/.well-known/*` must carry
   * `Authorization: Bearer <token>`; off by default. */
  token?: string;
  /** The workspace folder this server serves, reported by `/health`. */
  workspace?: string;
  /** The version reported by `/health`; default: the `version` of our package.json. */
  version?: string;
  /** Bound on a request body in bytes (larger → 413); default 4 MiB. */
  maxBodyBytes?: number;
  /** Also listen on [::1] (default true); a machine without IPv6 is tolerated either way. */
  ipv6?: boolean;
  /** A session with no request in flight, no open event stream and no activity for this long is
   * closed; default one hour; 0 turns the sweep off. */
  sessionIdleTimeoutMs?: number;
  /** A session whose client had its event stream (the standalone GET) open, and has had neither
   * that stream nor a request in flight for this long, is closed: the client is gone (killed,
   * crashed — a client that ends cleanly sends DELETE). A live client re-opens a dropped stream
   * within a second or two. Default 5000 ms; 0 leaves such sessions to the idle sweep. */
  streamGoneMs?: number;
  /** Upper bound of `close()`: after it, remaining connections are destroyed; default 2000 ms. */
  closeTimeoutMs?: number;
  /** Diagnostics (one line each); default: none. Never stdout when stdio carries MCP. */
  log?: (line: string) => void;
  /** Called with the number of open sessions whenever one opens or closes (e.g. a status bar). */
  onSessionsChanged?: (count: number) => void;
  /** Extra routes of the embedding host (e.g. the VS Code extension's authenticated control
   * endpoint), consulted after the Host/Origin checks and before `/health`, the bearer token and
   * MCP; resolves true when it answered the request. Each route checks its own credentials. */
  routes?: (
    req: http.IncomingMessage,
    res: http.ServerResponse,
    pathname: string,
  ) => boolean | Promise<boolean>;
}

/** What `GET /health` answers. */
export interface HealthInfo {
  name: typeof HEALTH_SERVER_NAME;
  version: string;
  pid: number;
  port: number;
  workspace: string | null;
  startedAt: string;
  instanceId: string;
  url: string;
  sessions: number;
}

export interface HttpServerHandle {
  /** The port actually bound (useful with port 0). */
  readonly port: number;
  /** The MCP endpoint on every bound address: `http://127.0.0.1:<port>/mcp` first, then
   * `http://[::1]:<port>/mcp` when IPv6 loopback is bound. */
  readonly urls: readonly string[];
  /** `urls[0]`. */
  readonly url: string;
  /** A fresh id per start, also in `/health`. */
  readonly instanceId: string;
  /** ISO 8601 time of the start, also in `/health`. */
  readonly startedAt: string;
  /** Number of open MCP sessions. */
  sessionCount(): number;
  /** Number of sessions whose client holds its event stream (GET) open right now. */
  listeningCount(): number;
  /** What `GET /health` answers right now. */
  health(): HealthInfo;
  /** Closes every session (their servers too) and both listeners; bounded by `closeTimeoutMs`.
   * Idempotent. */
  close(): Promise<void>;
}

/** Thrown by `startHttpServer` when the port is taken (EADDRINUSE), with a message saying what to do. */
export class PortInUseError extends Error {
  readonly code = 'EADDRINUSE';
  constructor(
    readonly port: number,
    readonly address: string,
  ) {
    super(
      `Port ${port} on ${address} is already in use — most likely another LuaPanda MCP server ` +
        `(another VS Code window or a headless luapanda-mcp) or another program. ` +
        `See who answers at http://127.0.0.1:${port}/health, stop that process, ` +
        `or choose another port (setting luapanda.mcp.port, or luapanda-mcp --http <port>).`,
    );
    this.name = 'PortInUseError';
  }
}

interface Session {
  readonly id: string;
  readonly transport: StreamableHTTPServerTransport;
  readonly server: McpServer;
  /** POST and DELETE requests being served. */
  inFlight: number;
  /** Open standalone event streams (GET): a client that holds one is there. */
  streams: number;
  /** Whether the client ever held an event stream (then losing it means the client went away). */
  hadStream: boolean;
  /** Runs out when the stream stayed gone for `streamGoneMs`. */
  goneTimer?: NodeJS.Timeout;
  lastActivity: number;
}

const JSON_HEADERS = {
  'Content-Type': 'application/json',
  'Cache-Control': 'no-store',
  'X-Content-Type-Options': 'nosniff',
};

const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]']);
const HOST_HEADER = /^(127\.0\.0\.1|localhost|\[::1\])(?::(\d{1,5}))?$/i;

/** Starts the HTTP server on 127.0.0.1 (and ::1 when available). Rejects with `PortInUseError` when
 * the port is taken. */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServerHandle> {
  const requestedPort = options.port ?? DEFAULT_MCP_PORT;
  if (!Number.isInteger(requestedPort) || requestedPort < 0 || requestedPort > 65535) {
    throw new RangeError(`Invalid port ${String(options.port)}: expected an integer 0–65535`);
  }
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!(maxBodyBytes > 0)) throw new RangeError('maxBodyBytes must be positive');
  const log = options.log ?? (() => undefined);
  const tokenDigest = options.token ? sha256(options.token) : undefined;
  const version = options.version ?? PACKAGE_VERSION;
  const instanceId = randomUUID();
  const startedAt = new Date().toISOString();
  const sessions = new Map<string, Session>();
  const sockets = new Set<Socket>();
  let port = requestedPort;
  let closing: Promise<void> | undefined;

  const health = (): HealthInfo => ({
    name: HEALTH_SERVER_NAME,
    version,
    pid: process.pid,
    port,
    workspace: options.workspace ?? null,
    startedAt,
    instanceId,
    url: `http://127.0.0.1:${port}${MCP_PATH}`,
    sessions: sessions.size,
  });
  const sessionsChanged = (): void => {
    try {
      options.onSessionsChanged?.(sessions.size);
    } catch (error) {
      log(`mcp http: onSessionsChanged failed: ${errorText(error)}`);
    }
  };

  const listener = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    handle(req, res).catch((error: unknown) => {
      log(`mcp http: ${req.method} ${req.url} failed: ${errorText(error)}`);
      if (!res.headersSent) {
        sendJsonRpcError(res, 500, -32603, 'Internal server error');
      } else {
        res.destroy();
      }
    });
  };

  /** Answers a refused request with a JSON-RPC error and logs why (never the credential itself),
   * so that a user whose client gets 401/403/413 finds the reason in the MCP log. */
  function refuse(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    status: number,
    reason: string,
    message: string,
    headers: Record<string, string> = {},
  ): void {
    log(`mcp http: refused ${req.method} ${req.url} with ${status}: ${reason}`);
    sendJsonRpcError(res, status, -32000, message, headers);
  }

  const readBody = (req: http.IncomingMessage, res: http.ServerResponse): Promise<BodyRead> =>
    readJsonBody(req, maxBodyBytes, (seen) =>
      refuse(
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

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (closing) {
      sendJsonRpcError(res, 503, -32000, 'The LuaPanda MCP server is shutting down', {
        Connection: 'close',
      });
      return;
    }
    // DNS-rebinding protection first, for every path (even /health names the workspace).
    const hostProblem = checkHost(req.headers.host, port);
    if (hostProblem) {
      refuse(req, res, 403, hostProblem, `Forbidden: ${hostProblem}`);
      return;
    }
    const originProblem = checkOrigin(req.headers.origin);
    if (originProblem) {
      refuse(req, res, 403, originProblem, `Forbidden: ${originProblem}`);
      return;
    }

    const pathname = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    if (options.routes && (await options.routes(req, res, pathname))) return;
    if (pathname === '/health') {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        sendJsonRpcError(res, 405, -32000, 'Method not allowed', { Allow: 'GET, HEAD' });
        return;
      }
      sendJson(res, 200, health());
      return;
    }
    if (pathname.startsWith('/.well-known/')) {
      // OAuth discovery probes: this server has no OAuth; say so in JSON rather than in HTML.
      sendJson(res, 404, {
        error: 'not_found',
        error_description: 'This LuaPanda MCP server does not use OAuth.',
      });
      return;
    }
    const tokenProblem = tokenDigest
      ? bearerProblem(req.headers.authorization, tokenDigest)
      : undefined;
    if (tokenProblem) {
      refuse(
        req,
        res,
        401,
        tokenProblem,
        'Unauthorized: send the LuaPanda MCP token as "Authorization: Bearer <token>"',
        { 'WWW-Authenticate': 'Bearer realm="luapanda-mcp"' },
      );
      return;
    }
    if (pathname !== MCP_PATH) {
      sendJsonRpcError(res, 404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`);
      return;
    }
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
  }

  async function startSession(
    req: http.IncomingMessage,
    res: http.ServerResponse,
    body: unknown,
  ): Promise<void> {
    let session: Session | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: maxBodyBytes,
      onsessioninitialized: (id) => {
        session = {
          id,
          transport,
          server,
          inFlight: 0,
          streams: 0,
          hadStream: false,
          lastActivity: Date.now(),
        };
        sessions.set(id, session);
        log(`mcp http: session ${id} opened (${sessions.size} open)`);
        sessionsChanged();
      },
    });
    // Set before connect(): the SDK chains its own onclose after ours.
    transport.onclose = () => {
      const id = transport.sessionId;
      const closed = id !== undefined ? sessions.get(id) : undefined;
      if (id !== undefined && closed?.transport === transport) {
        clearTimeout(closed.goneTimer);
        sessions.delete(id);
        log(`mcp http: session ${id} closed (${sessions.size} open)`);
        sessionsChanged();
      }
    };
    const server = options.createServer();
    await server.connect(transport);
    try {
      await transport.handleRequest(req, res, body);
    } finally {
      if (!session) {
        // The initialize request was refused (bad protocol version, …): nothing will reach it again.
        await server.close().catch(() => undefined);
      }
    }
  }

  async function serveInSession(
    session: Session,
    req: http.IncomingMessage,
    res: http.ServerResponse,
    body: unknown,
  ): Promise<void> {
    // GET opens the session's standalone event stream; it stays open as long as the client is
    // there (and the SDK's client re-opens it when it drops), so it is not a request in flight.
    const stream = req.method === 'GET';
    if (stream) session.streams++;
    else session.inFlight++;
    session.lastActivity = Date.now();
    res.once('close', () => {
      if (stream) {
        session.streams--;
        // 200: it was an event stream (not a refusal such as 409, a second stream).
        if (res.statusCode === 200) session.hadStream = true;
      } else {
        session.inFlight--;
      }
      session.lastActivity = Date.now();
      watchForGoneClient(session);
    });
    await session.transport.handleRequest(req, res, body);
    // A cancelled request never gets a response (the specification says so), and the SDK then
    // keeps its event stream, and the client's connection, open until the session ends: end it.
    for (const requestId of cancelledRequestIds(body)) {
      session.transport.closeSSEStream(requestId);
    }
  }

  // A client killed while it held its event stream: the stream ended and no request followed.
  const streamGoneMs = options.streamGoneMs ?? 5000;
  function watchForGoneClient(session: Session): void {
    if (streamGoneMs <= 0 || !session.hadStream) return;
    if (session.streams > 0 || session.inFlight > 0) return;
    clearTimeout(session.goneTimer);
    session.goneTimer = setTimeout(() => {
      session.goneTimer = undefined;
      if (sessions.get(session.id) !== session) return;
      // A request or a new stream since: the client is there (its end is watched again).
      if (session.streams > 0 || session.inFlight > 0) return;
      log(
        `mcp http: session ${session.id}: its client's event stream closed and did not come back ` +
          `within ${streamGoneMs} ms; the client is gone, closing the session`,
      );
      void session.transport.close().catch(() => undefined);
    }, streamGoneMs);
    session.goneTimer.unref();
  }

  // Sessions whose client went away without DELETE and without an event stream to tell.
  const idleMs = options.sessionIdleTimeoutMs ?? 60 * 60 * 1000;
  const sweep =
    idleMs > 0
      ? setInterval(
          () => {
            const now = Date.now();
            for (const session of sessions.values()) {
              if (
                session.inFlight === 0 &&
                session.streams === 0 &&
                now - session.lastActivity > idleMs
              ) {
                log(`mcp http: session ${session.id} idle, closing it`);
                void session.transport.close().catch(() => undefined);
              }
            }
          },
          Math.min(idleMs, 60_000),
        )
      : undefined;
  sweep?.unref();

  const makeServer = (): http.Server => {
    const server = http.createServer(listener);
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    return server;
  };

  const v4 = makeServer();
  let v6: http.Server | undefined;
  try {
    port = await listen(v4, '127.0.0.1', requestedPort);
    if (options.ipv6 ?? true) {
      // With port 0 the kernel chose a port free on 127.0.0.1; ::1 may still hold it elsewhere.
      for (let attempt = 0; ; attempt++) {
        const candidate = makeServer();
        try {
          await listen(candidate, '::1', port, true);
          v6 = candidate;
          break;
        } catch (error) {
          if (isNoIpv6(error)) {
            log(`mcp http: no IPv6 loopback here (${errorText(error)}); serving 127.0.0.1 only`);
            break;
          }
          if (error instanceof PortInUseError && requestedPort === 0 && attempt < 5) {
            await closeServer(v4, sockets, 1000);
            port = await listen(v4, '127.0.0.1', 0);
            continue;
          }
          throw error;
        }
      }
    }
  } catch (error) {
    if (sweep) clearInterval(sweep);
    await closeServer(v4, sockets, 1000);
    throw error;
  }
  for (const server of [v4, v6]) {
    server?.on('error', (error) => log(`mcp http: listener error: ${errorText(error)}`));
  }

  const urls = [`http://127.0.0.1:${port}${MCP_PATH}`];
  if (v6) urls.push(`http://[::1]:${port}${MCP_PATH}`);
  log(`mcp http: listening on ${urls.join(' and ')}`);

  const closeTimeoutMs = options.closeTimeoutMs ?? 2000;
  return {
    port,
    urls,
    url: urls[0],
    instanceId,
    startedAt,
    sessionCount: () => sessions.size,
    listeningCount: () => [...sessions.values()].filter((s) => s.streams > 0).length,
    health,
    close(): Promise<void> {
      closing ??= (async () => {
        if (sweep) clearInterval(sweep);
        const deadline = Date.now() + closeTimeoutMs;
        // Stop accepting; idle keep-alive connections are closed by server.close() itself.
        const listenersClosed = Promise.all(
          [v4, v6].map((server) => (server ? closeServer(server, sockets, closeTimeoutMs) : null)),
        );
        // Closing a transport ends its SSE streams and aborts its running tool calls.
        await withTimeout(
          Promise.allSettled([...sessions.values()].map((session) => session.transport.close())),
          Math.max(0, deadline - Date.now()),
        );
        sessions.clear();
        await listenersClosed;
        log('mcp http: closed');
      })();
      return closing;
    },
  };
}

/**
 * Asks `http://127.0.0.1:<port>/health` who serves there: our server's `HealthInfo`, or undefined
 * when nothing answers, something else answers, or no answer comes within `timeoutMs` (default
 * 1000). Used to tell VS Code windows (and headless servers) apart.
 */
export async function fetchHealth(
  port: number,
  options: { timeoutMs?: number } = {},
): Promise<HealthInfo | undefined> {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/health`, {
      signal: AbortSignal.timeout(options.timeoutMs ?? 1000),
    });
    const text = await response.text();
    if (!response.ok) return undefined;
    const info = JSON.parse(text) as Partial<HealthInfo> | null;
    return info?.name === HEALTH_SERVER_NAME && typeof info.instanceId === 'string'
      ? (info as HealthInfo)
      : undefined;
  } catch {
    return undefined;
  }
}

/** Why a Host header is refused, or undefined when it names this loopback server. */
export function checkHost(host: string | undefined, port: number): string | undefined {
  if (!host) return 'missing Host header';
  const match = HOST_HEADER.exec(host.trim());
  if (!match) return `Host "${host}" is not a loopback name of this server`;
  const hostPort = match[2] === undefined ? 80 : Number(match[2]);
  if (hostPort !== port) return `Host "${host}" names port ${hostPort}, not ${port}`;
  return undefined;
}

/** Why an Origin header is refused, or undefined when absent or a local http(s) origin. */
export function checkOrigin(origin: string | undefined): string | undefined {
  if (origin === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return `Origin "${origin}" is not allowed`;
  }
  const local =
    (url.protocol === 'http:' || url.protocol === 'https:') &&
    url.username === '' &&
    url.password === '' &&
    LOOPBACK_HOSTNAMES.has(url.hostname.toLowerCase());
  return local ? undefined : `Origin "${origin}" is not allowed (only local http(s) origins are)`;
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

/** Why an Authorization header does not carry the token, or undefined when it does. */
function bearerProblem(header: string | undefined, tokenDigest: Buffer): string | undefined {
  if (header === undefined) return 'missing Authorization header (a bearer token is required)';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (match === null) return 'the Authorization header is not "Bearer <token>"';
  // Compare digests of equal length, so that neither the content nor the length leaks by timing.
  return timingSafeEqual(sha256(match[1]), tokenDigest) ? undefined : 'wrong bearer token';
}

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

type BodyRead = { ok: true; value: unknown } | { ok: false; parseError: boolean };

/** Reads a JSON body of at most `limit` bytes. Over the limit (declared or streamed) it calls
 * `tooLarge` with what it saw, which answers 413; invalid JSON is reported as `parseError`. */
function readJsonBody(
  req: http.IncomingMessage,
  limit: number,
  tooLarge: (seen: string) => void,
): Promise<BodyRead> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) {
    tooLarge(`Content-Length ${declared}`);
    req.resume();
    return Promise.resolve({ ok: false, parseError: false });
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        done = true;
        chunks.length = 0;
        req.off('data', onData);
        req.resume();
        tooLarge(`${size} bytes read so far`);
        resolve({ ok: false, parseError: false });
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('error', (error) => {
      if (!done) {
        done = true;
        reject(error);
      }
    });
    req.once('end', () => {
      if (done) return;
      done = true;
      try {
        resolve({ ok: true, value: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
      } catch {
        resolve({ ok: false, parseError: true });
      }
    });
  });
}

function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...JSON_HEADERS,
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(res.req.method === 'HEAD' ? undefined : text);
}

function sendJsonRpcError(
  res: http.ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { jsonrpc: '2.0', error: { code, message }, id: null }, headers);
}

function listen(
  server: http.Server,
  host: string,
  port: number,
  ipv6Only = false,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, host) : error);
    };
    const onListening = (): void => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ host, port, ipv6Only, exclusive: true });
  });
}

/** Closes a listener; connections still open after `timeoutMs` are destroyed. */
function closeServer(server: http.Server, sockets: Set<Socket>, timeoutMs: number): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    const deadline = Date.now() + timeoutMs;
    // server.close() drops the connections idle at that moment only; a keep-alive connection whose
    // last response (an event stream) ends later would hold the listener open: keep sweeping.
    const sweep = setInterval(() => {
      server.closeIdleConnections();
      if (Date.now() >= deadline) {
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      }
    }, 20);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}

function isNoIpv6(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT' || code === 'EPROTONOSUPPORT';
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
