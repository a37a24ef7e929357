/**
 * The MCP server's stdio transports: `serveStdio` serves one McpServer over stdin/stdout (headless
 * `luapanda-mcp --stdio`), and `bridgeStdioToHttp` relays every JSON-RPC message between stdio and a
 * running Streamable HTTP server (`luapanda-mcp --stdio --connect <url>`), so that a stdio-only
 * client reaches the debugger of a VS Code window, progress notifications and cancellations included.
 * stdout carries the protocol only; diagnostics go to stderr.
 */
import type { Readable, Writable } from 'node:stream';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isInitializeRequest,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { HEALTH_SERVER_NAME } from './http';

export interface StdioStreams {
  /** Default `process.stdin`. */
  stdin?: Readable;
  /** Default `process.stdout`. */
  stdout?: Writable;
}

export interface ServeStdioOptions extends StdioStreams {
  /** Send `console.log/info/debug` to stderr, so that nothing but protocol reaches stdout
   * (default true when stdout is `process.stdout`). */
  redirectConsole?: boolean;
}

export interface StdioServerHandle {
  readonly server: McpServer;
  /** Resolves when the session ends: stdin closed, stdout broken, or `close()`. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** Serves one McpServer from `createServer()` over stdio; the session ends when stdin ends. */
export async function serveStdio(
  createServer: () => McpServer,
  options: ServeStdioOptions = {},
): Promise<StdioServerHandle> {
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  if (options.redirectConsole ?? stdout === process.stdout) redirectConsoleToStderr();

  const server = createServer();
  const transport = new StdioServerTransport(stdin, stdout);
  let markClosed!: () => void;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  // Set before connect(): the SDK chains its own onclose after ours.
  transport.onclose = () => markClosed();
  await server.connect(transport);

  const end = (): void => void server.close().catch(() => undefined);
  const onStdoutError = (error: NodeJS.ErrnoException): void => {
    // EPIPE: the client is gone; nothing can be answered any more.
    if (error.code !== 'EPIPE') process.stderr.write(`luapanda-mcp: stdout: ${error.message}\n`);
    end();
  };
  stdin.once('end', end);
  stdin.once('close', end);
  stdout.on('error', onStdoutError);
  void closed.then(() => {
    stdin.off('end', end);
    stdin.off('close', end);
    stdout.off('error', onStdoutError);
  });
  return {
    server,
    closed,
    async close() {
      await server.close();
      await closed;
    },
  };
}

export interface BridgeOptions extends StdioStreams {
  /** Bearer token of the HTTP server, sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** One line of diagnostics; default: written to stderr as `luapanda-mcp: <line>`. */
  log?: (line: string) => void;
  /** Bound on the reachability probe at start; default 5000 ms. */
  probeTimeoutMs?: number;
  /** Send `console.log/info/debug` to stderr (default true when stdout is `process.stdout`). */
  redirectConsole?: boolean;
}

export interface BridgeResult {
  /** 0 when stdin ended (the client closed us); 1 when the HTTP side failed. */
  exitCode: number;
  reason: string;
}

export interface BridgeHandle {
  /** Resolves once the bridge has stopped; a non-zero exit code says the HTTP server was lost. */
  readonly done: Promise<BridgeResult>;
  /** Ends the bridge as if stdin had ended (the HTTP session is deleted). */
  close(): Promise<BridgeResult>;
}

/** Thrown by `bridgeStdioToHttp` when the HTTP server cannot be used at all. */
export class BridgeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BridgeError';
  }
}

/**
 * Starts relaying stdio ⇄ the Streamable HTTP MCP endpoint `url`. Resolves once the server has been
 * reached (rejects with `BridgeError` when it cannot be); messages pass unchanged both ways.
 */
export async function bridgeStdioToHttp(
  url: string | URL,
  options: BridgeOptions = {},
): Promise<BridgeHandle> {
  const endpoint = new URL(url);
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') {
    throw new BridgeError(`Cannot bridge to ${endpoint.href}: expected an http:// URL`);
  }
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  if (options.redirectConsole ?? stdout === process.stdout) redirectConsoleToStderr();
  const log = options.log ?? ((line: string) => process.stderr.write(`luapanda-mcp: ${line}\n`));
  const authHeaders: Record<string, string> = options.token
    ? { Authorization: `Bearer ${options.token}` }
    : {};

  await probe(endpoint, authHeaders, options.probeTimeoutMs ?? 5000, log);

  let finished: BridgeResult | undefined;
  let markDone!: (result: BridgeResult) => void;
  const done = new Promise<BridgeResult>((resolve) => (markDone = resolve));
  /** Requests from the stdio client that still wait for their response. */
  const pending = new Map<RequestId, string>();
  /** Id of the stdio client's initialize request, to learn the negotiated protocol version. */
  let initializeId: RequestId | undefined;

  const watchedFetch: FetchLike = async (input, init) => {
    let response: Response;
    try {
      response = await fetch(input, init);
    } catch (error) {
      if (!init?.signal?.aborted && !finished) {
        void fail(`Lost the LuaPanda MCP server at ${endpoint.href}: ${causeText(error)}.`);
      }
      throw error;
    }
    const hadSession = new Headers(init?.headers).has('mcp-session-id');
    if (response.status === 401) {
      void fail(
        `The LuaPanda MCP server at ${endpoint.href} refused the token (401): pass the right ` +
          `token, as set in luapanda.mcp.token.`,
      );
    } else if (response.status === 404 && hadSession) {
      void fail(
        `The LuaPanda MCP server at ${endpoint.href} no longer knows this session (404): it was ` +
          `restarted or closed the session. Restart the MCP client to connect again.`,
      );
    } else if (response.status === 403) {
      void fail(`The LuaPanda MCP server at ${endpoint.href} refused the request (403).`);
    }
    return response;
  };

  const http = new StreamableHTTPClientTransport(endpoint, {
    fetch: watchedFetch,
    requestInit: { headers: authHeaders },
    // The GET stream ends when the server goes away: retry briefly, then the failure is fatal.
    reconnectionOptions: {
      initialReconnectionDelay: 200,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 2,
      maxRetries: 3,
    },
  });
  const stdio = new StdioServerTransport(stdin, stdout);

  const sendToStdio = (message: JSONRPCMessage): Promise<void> =>
    finished ? Promise.resolve() : stdio.send(message);

  http.onmessage = (message) => {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      if (message.id !== undefined) pending.delete(message.id);
      if (isJSONRPCResultResponse(message) && message.id === initializeId) {
        const version = message.result.protocolVersion;
        if (typeof version === 'string') http.setProtocolVersion(version);
      }
    }
    void sendToStdio(message);
  };
  http.onerror = (error) => {
    if (!finished) log(`http: ${error.message}`);
    if (/Maximum reconnection attempts/.test(error.message)) {
      void fail(`Lost the LuaPanda MCP server at ${endpoint.href}: its event stream ended.`);
    }
  };

  // One message at a time, in order: a POST returns as soon as the server has taken the message
  // (its answer streams afterwards), so order costs no waiting on slow tools.
  let queue = Promise.resolve();
  stdio.onmessage = (message) => {
    if (finished) return;
    if (isJSONRPCRequest(message)) {
      pending.set(message.id, message.method);
      if (isInitializeRequest(message)) initializeId = message.id;
    } else if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const cancelled = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (cancelled !== undefined) pending.delete(cancelled);
    }
    queue = queue.then(() => forward(message));
  };
  stdio.onerror = (error) => log(`stdio: ${error.message}`);

  async function forward(message: JSONRPCMessage): Promise<void> {
    if (finished) return;
    try {
      await http.send(message);
    } catch (error) {
      if (finished) return;
      if (isJSONRPCRequest(message) && pending.delete(message.id)) {
        await sendToStdio({
          jsonrpc: '2.0',
          id: message.id,
          error: {
            code: -32000,
            message: `The LuaPanda MCP server could not take ${message.method}: ${causeText(error)}`,
          },
        });
      } else {
        log(`could not forward a message to ${endpoint.href}: ${causeText(error)}`);
      }
    }
  }

  async function finish(result: BridgeResult): Promise<BridgeResult> {
    if (finished) return done;
    finished = result;
    stdin.off('end', onStdinEnd);
    stdin.off('close', onStdinEnd);
    stdout.off('error', onStdoutError);
    if (result.exitCode !== 0) {
      log(result.reason);
      // Every request still waiting gets the reason, rather than silence.
      const answers = [...pending.keys()].map((id) =>
        stdio.send({ jsonrpc: '2.0', id, error: { code: -32000, message: result.reason } }),
      );
      await withTimeout(Promise.all(answers), 1000);
    } else if (http.sessionId !== undefined) {
      // A clean end: end the HTTP session too, so the server forgets it at once.
      await withTimeout(
        http.terminateSession().catch(() => undefined),
        2000,
      );
    }
    pending.clear();
    await http.close().catch(() => undefined);
    await stdio.close().catch(() => undefined);
    markDone(result);
    return result;
  }

  function fail(reason: string): Promise<BridgeResult> {
    return finish({ exitCode: 1, reason });
  }
  function onStdinEnd(): void {
    void finish({ exitCode: 0, reason: 'stdin ended' });
  }
  function onStdoutError(error: NodeJS.ErrnoException): void {
    void finish({ exitCode: 0, reason: `stdout closed (${error.code ?? error.message})` });
  }

  stdin.once('end', onStdinEnd);
  stdin.once('close', onStdinEnd);
  stdout.on('error', onStdoutError);
  await http.start();
  await stdio.start();
  return {
    done,
    close: () => finish({ exitCode: 0, reason: 'closed' }),
  };
}

/**
 * The whole `--stdio --connect <url>` run for a CLI: starts the bridge, waits for its end, writes
 * any failure to stderr, and resolves the process exit code (0 after a clean end, 1 on failure).
 */
export async function runStdioBridge(
  url: string | URL,
  options: BridgeOptions = {},
): Promise<number> {
  try {
    const bridge = await bridgeStdioToHttp(url, options);
    return (await bridge.done).exitCode;
  } catch (error) {
    process.stderr.write(`luapanda-mcp: ${causeText(error)}\n`);
    return 1;
  }
}

/** Checks that something answers at the endpoint's origin before any stdio traffic is read. */
async function probe(
  endpoint: URL,
  headers: Record<string, string>,
  timeoutMs: number,
  log: (line: string) => void,
): Promise<void> {
  const healthUrl = new URL('/health', endpoint);
  let response: Response;
  try {
    response = await fetch(healthUrl, { headers, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new BridgeError(
      `Cannot reach the LuaPanda MCP server at ${endpoint.href}: ${causeText(error)}. ` +
        `Is VS Code with LuaPanda MCP running (or "luapanda-mcp --http ${endpoint.port || 80}")?`,
    );
  }
  const text = await response.text().catch(() => '');
  if (!response.ok) return; // Some other server: let the MCP exchange itself tell.
  try {
    const info = JSON.parse(text) as Record<string, unknown>;
    if (info.name === HEALTH_SERVER_NAME) {
      log(
        `bridging stdio to ${endpoint.href} (luapanda-mcp ${String(info.version)}, pid ` +
          `${String(info.pid)}, workspace ${String(info.workspace)})`,
      );
    }
  } catch {
    // not our health document; go on
  }
}

let consoleRedirected = false;

/** Routes console.log/info/debug to stderr: stdout belongs to the protocol. */
export function redirectConsoleToStderr(): void {
  if (consoleRedirected) return;
  consoleRedirected = true;
  const toStderr = (...args: unknown[]): void => console.error(...args);
  // eslint-disable-next-line no-console -- replacing, not calling: stdout is the protocol channel
  console.log = toStderr;
  // eslint-disable-next-line no-console -- as above
  console.info = toStderr;
  // eslint-disable-next-line no-console -- as above
  console.debug = toStderr;
}

function causeText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  // fetch() failures say "fetch failed" and keep the useful part (ECONNREFUSED …) in `cause`.
  const cause = (error as Error & { cause?: unknown }).cause;
  if (cause instanceof Error && cause.message) return `${error.message} (${cause.message})`;
  if (error.name === 'TimeoutError') return 'no answer in time';
  return error.message;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
