/**
 * The MCP server's Streamable HTTP transport: `http://127.0.0.1:<port>/mcp` on loopback only, one
 * stateful MCP session (and one McpServer from `createServer()`) per client, with the local-server
 * protections the MCP specification asks for (Host and Origin checks against DNS rebinding, no
 * wildcard CORS, bounded request bodies, an optional bearer token) and a `/health` probe that tells
 * which LuaPanda MCP server (which VS Code window) answers on the port. This file routes each
 * request through those parts: httpGuards.ts (the checks), mcpEndpoint.ts and mcpSessionTable.ts
 * (the MCP sessions), dualStackListener.ts (the sockets), httpHealth.ts (`/health`).
 */
import { errorText } from '../../common/errorText';
import { randomUUID } from 'node:crypto';
import type * as http from 'node:http';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { PACKAGE_VERSION } from '../../common/version';
import { DualStackListener } from './dualStackListener';
import { bearerCheck, checkLocalRequest } from './httpGuards';
import { HEALTH_SERVER_NAME, type HealthInfo } from './httpHealth';
import { refuse, sendJson, sendJsonRpcError } from './httpReplies';
import { mcpEndpoint } from './mcpEndpoint';
import { McpSessionTable } from './mcpSessionTable';

export { PortInUseError } from './dualStackListener';
export { fetchHealth, HEALTH_SERVER_NAME, type HealthInfo } from './httpHealth';

/** The port of `luapanda.mcp.port` when nothing else is configured. */
export const DEFAULT_MCP_PORT = 6009;
/** The path of the MCP endpoint. */
export const MCP_PATH = '/mcp';
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
  const tokenProblem = options.token ? bearerCheck(options.token) : undefined;
  const version = options.version ?? PACKAGE_VERSION;
  const instanceId = randomUUID();
  const startedAt = new Date().toISOString();
  let closing: Promise<void> | undefined;

  const sessions = new McpSessionTable<StreamableHTTPServerTransport>({
    idleMs: options.sessionIdleTimeoutMs ?? 60 * 60 * 1000,
    streamGoneMs: options.streamGoneMs ?? 5000,
    log,
    onChanged: options.onSessionsChanged,
  });
  const serveMcp = mcpEndpoint({
    createServer: options.createServer,
    sessions,
    maxBodyBytes,
    log,
  });
  const listener = new DualStackListener((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`mcp http: ${req.method} ${req.url} failed: ${errorText(error)}`);
      if (!res.headersSent) {
        sendJsonRpcError(res, 500, -32603, 'Internal server error');
      } else {
        res.destroy();
      }
    });
  }, log);

  const health = (): HealthInfo => ({
    name: HEALTH_SERVER_NAME,
    version,
    pid: process.pid,
    port: listener.port,
    workspace: options.workspace ?? null,
    startedAt,
    instanceId,
    url: `http://127.0.0.1:${listener.port}${MCP_PATH}`,
    sessions: sessions.size,
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    if (closing) {
      sendJsonRpcError(res, 503, -32000, 'The LuaPanda MCP server is shutting down', {
        Connection: 'close',
      });
      return;
    }
    // DNS-rebinding protection first, for every path (even /health names the workspace).
    const localProblem = checkLocalRequest(req.headers, listener.port);
    if (localProblem) {
      refuse(log, req, res, 403, localProblem, `Forbidden: ${localProblem}`);
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
    const unauthorized = tokenProblem?.(req.headers.authorization);
    if (unauthorized) {
      refuse(
        log,
        req,
        res,
        401,
        unauthorized,
        'Unauthorized: send the LuaPanda MCP token as "Authorization: Bearer <token>"',
        { 'WWW-Authenticate': 'Bearer realm="luapanda-mcp"' },
      );
      return;
    }
    if (pathname !== MCP_PATH) {
      sendJsonRpcError(res, 404, -32000, `Not found: the MCP endpoint is ${MCP_PATH}`);
      return;
    }
    await serveMcp(req, res);
  }

  try {
    await listener.listen(requestedPort, options.ipv6 ?? true);
  } catch (error) {
    await sessions.close(0);
    throw error;
  }
  const port = listener.port;
  const urls = [`http://127.0.0.1:${port}${MCP_PATH}`];
  if (listener.ipv6) urls.push(`http://[::1]:${port}${MCP_PATH}`);
  log(`mcp http: listening on ${urls.join(' and ')}`);

  const closeTimeoutMs = options.closeTimeoutMs ?? 2000;
  return {
    port,
    urls,
    url: urls[0],
    instanceId,
    startedAt,
    sessionCount: () => sessions.size,
    listeningCount: () => sessions.listeningCount(),
    health,
    close(): Promise<void> {
      closing ??= (async () => {
        const deadline = Date.now() + closeTimeoutMs;
        // Stop accepting; idle keep-alive connections are closed by server.close() itself.
        const listenersClosed = listener.close(closeTimeoutMs);
        await sessions.close(Math.max(0, deadline - Date.now()));
        await listenersClosed;
        log('mcp http: closed');
      })();
      return closing;
    },
  };
}
