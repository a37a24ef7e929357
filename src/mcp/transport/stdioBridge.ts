/**
 * The stdio → Streamable HTTP bridge (`luapanda-mcp --stdio --connect <url>`): relays every JSON-RPC
 * message between a stdio-only client and a running HTTP server (a VS Code window's), progress
 * notifications and cancellations included. The HTTP server may come later than the client (waited
 * for, within a bound) and may restart (a window reload): the bridge then opens a new HTTP session,
 * replaying the client's `initialize`, so that the client never sees the restart but for the
 * requests that were running on the old session. stdout carries the protocol only; diagnostics go
 * to stderr. This file checks the options and wires the parts: the HTTP session
 * (bridgeSessions.ts), the relaying both ways (bridgeForward.ts) and the end (bridgeShutdown.ts).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { causeText, probeOnce } from './bridgeProbe';
import { ClientToServer, serverToClient, type ForwardParts } from './bridgeForward';
import { InitializeReplay } from './bridgeInitialize';
import { BridgeRequests } from './bridgeRequests';
import { BridgeError, BridgeSessions } from './bridgeSessions';
import { BridgeShutdown, type BridgeResult } from './bridgeShutdown';
import { redirectConsoleToStderr, type StdioStreams } from './stdioStreams';

export { BridgeError } from './bridgeSessions';
export type { BridgeResult } from './bridgeShutdown';

/** How long the bridge waits for the HTTP server by default, at start and after losing it. */
export const DEFAULT_BRIDGE_WAIT_SECONDS = 300;

export interface BridgeOptions extends StdioStreams {
  /** Bearer token of the HTTP server, sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** One line of diagnostics; default: written to stderr as `luapanda-mcp: <line>`. */
  log?: (line: string) => void;
  /** Bound on one reachability probe; default 5000 ms. */
  probeTimeoutMs?: number;
  /** How long to wait for an unreachable server (at start and after it went away) before giving
   * up; 0 fails at once. Default `DEFAULT_BRIDGE_WAIT_SECONDS`. */
  waitSeconds?: number;
  /** Send `console.log/info/debug` to stderr (default true when stdout is `process.stdout`). */
  redirectConsole?: boolean;
}

export interface BridgeHandle {
  /** Resolves once the bridge has stopped; a non-zero exit code says the HTTP server was lost. */
  readonly done: Promise<BridgeResult>;
  /** Ends the bridge as if stdin had ended (the HTTP session is deleted). */
  close(): Promise<BridgeResult>;
}

/**
 * Starts relaying stdio ⇄ the Streamable HTTP MCP endpoint `url`. Resolves once stdio is served;
 * rejects with `BridgeError` when the URL is unusable, or when the server is unreachable and
 * `waitSeconds` is 0. Messages pass unchanged both ways.
 */
export async function bridgeStdioToHttp(
  url: string | URL,
  options: BridgeOptions = {},
): Promise<BridgeHandle> {
  const endpoint = new URL(url);
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') {
    throw new BridgeError(`Cannot bridge to ${endpoint.href}: expected an http:// URL`);
  }
  const href = endpoint.href;
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  if (options.redirectConsole ?? stdout === process.stdout) redirectConsoleToStderr();
  const log = options.log ?? ((line: string) => process.stderr.write(`luapanda-mcp: ${line}\n`));
  const headers: Record<string, string> = options.token
    ? { Authorization: `Bearer ${options.token}` }
    : {};
  const probeTimeoutMs = options.probeTimeoutMs ?? 5000;
  const waitSeconds = Math.max(0, options.waitSeconds ?? DEFAULT_BRIDGE_WAIT_SECONDS);
  const hint = `Is VS Code with LuaPanda MCP running (or "luapanda-mcp --http ${endpoint.port || 80}")?`;

  const firstProbe = await probeOnce(endpoint, headers, probeTimeoutMs);
  if (!firstProbe.ok && waitSeconds === 0) {
    throw new BridgeError(
      `Cannot reach the LuaPanda MCP server at ${href}: ${firstProbe.cause}. ${hint}`,
    );
  }

  const requests = new BridgeRequests();
  const initialize = new InitializeReplay();
  const stdio = new StdioServerTransport(stdin, stdout);
  // The parts know one another through these functions, called once the bridge runs.
  const finished = (): BridgeResult | undefined => shutdown.finished;
  const toClient = (message: JSONRPCMessage): Promise<void> =>
    finished() ? Promise.resolve() : stdio.send(message).catch(() => undefined);
  const forwardParts: ForwardParts = { href, log, requests, initialize, toClient, finished };
  const sessions = new BridgeSessions(
    {
      endpoint,
      headers,
      probeTimeoutMs,
      waitSeconds,
      hint,
      log,
      requests,
      initialize,
      onMessage: serverToClient(forwardParts),
      toClient,
      finished,
      fail: (reason) => void shutdown.fail(reason),
    },
    firstProbe,
  );
  const shutdown = new BridgeShutdown({
    stdin,
    stdout,
    stdio,
    requests,
    log,
    sessionAtEnd: () => sessions.atEnd(),
  });
  const toServer = new ClientToServer(forwardParts, sessions);
  stdio.onmessage = (message) => toServer.fromClient(message);
  stdio.onerror = (error) => log(`stdio: ${error.message}`);

  await stdio.start();
  // Connect now rather than at the first message: the wait (if any) is announced at once, and the
  // session is ready when the client speaks.
  void sessions.ensure().catch(() => undefined);
  return {
    done: shutdown.done,
    close: () => shutdown.finish({ exitCode: 0, reason: 'closed' }),
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
