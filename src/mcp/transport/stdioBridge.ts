/**
 * The stdio → Streamable HTTP bridge (`luapanda-mcp --stdio --connect <url>`): relays every JSON-RPC
 * message between a stdio-only client and a running HTTP server (a VS Code window's), progress
 * notifications and cancellations included. The HTTP server may come later than the client (waited
 * for, within a bound) and may restart (a window reload): the bridge then opens a new HTTP session,
 * replaying the client's `initialize`, so that the client never sees the restart but for the
 * requests that were running on the old session. stdout carries the protocol only; diagnostics go
 * to stderr.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  isInitializedNotification,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { deferred, settleWithin } from '../../common/async';
import { causeText, describeHealth, probeOnce, type ProbeResult } from './bridgeProbe';
import { InitializeReplay } from './bridgeInitialize';
import { reachServer } from './bridgeReach';
import { BridgeRequests } from './bridgeRequests';
import { createUpstream, type Upstream } from './bridgeUpstream';
import { redirectConsoleToStderr, type StdioStreams } from './stdioStreams';

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
  const authHeaders: Record<string, string> = options.token
    ? { Authorization: `Bearer ${options.token}` }
    : {};
  const probeTimeoutMs = options.probeTimeoutMs ?? 5000;
  const waitSeconds = Math.max(0, options.waitSeconds ?? DEFAULT_BRIDGE_WAIT_SECONDS);
  const waitMs = waitSeconds * 1000;
  const hint = `Is VS Code with LuaPanda MCP running (or "luapanda-mcp --http ${endpoint.port || 80}")?`;

  let firstProbe: ProbeResult | undefined = await probeOnce(endpoint, authHeaders, probeTimeoutMs);
  if (!firstProbe.ok && waitMs === 0) {
    throw new BridgeError(
      `Cannot reach the LuaPanda MCP server at ${href}: ${firstProbe.cause}. ${hint}`,
    );
  }

  let finished: BridgeResult | undefined;
  const ended = deferred<BridgeResult>();
  const done = ended.promise;
  /** Requests in flight both ways. */
  const requests = new BridgeRequests();
  /** The client's initialize, replayed on every session made after a restart. */
  const initialize = new InitializeReplay();
  /** The session in use; undefined while (re)connecting. */
  let upstream: Upstream | undefined;
  /** The newest session made, in use or being initialized: closed at the end. */
  let latest: Upstream | undefined;
  let generation = 0;
  let connecting: Promise<Upstream> | undefined;

  const stdio = new StdioServerTransport(stdin, stdout);
  const sendToStdio = (message: JSONRPCMessage): Promise<void> =>
    finished ? Promise.resolve() : stdio.send(message).catch(() => undefined);
  const errorAnswer = (id: RequestId, message: string): JSONRPCMessage => ({
    jsonrpc: '2.0',
    id,
    error: { code: -32000, message },
  });

  function openUpstream(gen: number): Upstream {
    const made = createUpstream(endpoint, authHeaders, gen, {
      lost: (cause) => lost(gen, cause),
      refused: (reason) => void fail(reason),
      error: (message) => {
        if (!finished && gen === generation) log(`http: ${message}`);
      },
    });
    const transport = made.transport;
    transport.onmessage = (message) => {
      if (gen !== generation || finished) return; // a closed session's last words
      if (
        (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) &&
        message.id !== undefined
      ) {
        if (initialize.fromServer(message.id, message, made)) return; // the answer to a replay
        requests.settle(message.id);
      } else if (isJSONRPCRequest(message)) {
        requests.serverRequest(message.id, gen);
      }
      void sendToStdio(message);
    };
    return made;
  }

  /** The session in use, or a new one once the server answers (within the wait bound). */
  function ensureUpstream(): Promise<Upstream> {
    if (upstream) return Promise.resolve(upstream);
    connecting ??= connect().finally(() => (connecting = undefined));
    return connecting;
  }

  async function connect(): Promise<Upstream> {
    const first = generation === 0;
    const known = firstProbe;
    firstProbe = undefined;
    const reached = await reachServer(
      {
        endpoint,
        headers: authHeaders,
        probeTimeoutMs,
        waitSeconds,
        hint,
        log,
        stopped: () => finished !== undefined,
      },
      known,
    );
    // A bridge that ended while it waited for the server stops here.
    if (!known?.ok && finished) throw new BridgeError(finished.reason);
    if (!reached.ok) {
      void fail(reached.reason);
      throw new BridgeError(reached.reason);
    }
    const verb = first ? 'bridging stdio to' : 'reconnected to';
    log(`${verb} ${href}${describeHealth(reached.health)}`);

    const next = openUpstream(++generation);
    latest = next;
    await next.transport.start();
    if (initialize.needed) {
      try {
        await initialize.replay(next);
      } catch (error) {
        void next.transport.close().catch(() => undefined);
        throw error;
      }
    }
    if (finished) throw new BridgeError(finished.reason);
    upstream = next;
    return next;
  }

  /** The session `gen` is gone: answer what ran on it, and open a new one at once, so that the
   * server's notifications and requests reach the client again without waiting for a request. */
  function lost(gen: number, cause: string): void {
    if (finished || upstream?.generation !== gen) return;
    const old = upstream;
    upstream = undefined;
    log(
      `Lost the LuaPanda MCP server session at ${href}: ${cause}. ` +
        (waitMs > 0 ? `Reconnecting (waiting up to ${waitSeconds} s).` : 'Trying once more.'),
    );
    void old.transport.close().catch(() => undefined);
    for (const { id, method } of requests.takeLostOn(gen)) {
      void sendToStdio(
        errorAnswer(
          id,
          `The LuaPanda MCP server at ${href} went away while ${method} ran (${cause}); ` +
            `its answer is lost. The bridge reconnects: send the request again.`,
        ),
      );
    }
    void ensureUpstream().catch(() => undefined);
  }

  // One message at a time, in order: a POST returns as soon as the server has taken the message
  // (its answer streams afterwards), so order costs no waiting on slow tools. While the server is
  // away, messages wait here (the client's initialize among them) until it is back or the bound
  // passes.
  let queue = Promise.resolve();
  stdio.onmessage = (message) => {
    if (finished) return;
    if (isJSONRPCRequest(message)) {
      requests.clientRequest(message.id, message.method);
    } else if (isJSONRPCNotification(message)) {
      if (message.method === 'notifications/cancelled') {
        const cancelled = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        if (cancelled !== undefined) requests.settle(cancelled);
      }
    } else if (
      (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) &&
      message.id !== undefined
    ) {
      if (!requests.clientAnswer(message.id, generation)) return; // its session is gone
    }
    initialize.fromClient(message);
    queue = queue.then(() => forward(message));
  };
  stdio.onerror = (error) => log(`stdio: ${error.message}`);

  async function forward(message: JSONRPCMessage): Promise<void> {
    // A message that failed because its session was lost is sent once more on the new session:
    // the server never took it.
    for (let attempt = 0; ; attempt++) {
      if (finished) return;
      let session: Upstream;
      try {
        session = await ensureUpstream();
      } catch (error) {
        return refuse(message, error);
      }
      if (isInitializedNotification(message) && initialize.initializedSentTo(session.generation)) {
        return;
      }
      try {
        await session.transport.send(message);
        if (isJSONRPCRequest(message)) {
          requests.sent(message.id, session.generation);
        } else if (isInitializedNotification(message)) {
          initialize.markInitializedSent(session.generation);
        }
        return;
      } catch (error) {
        if (finished) return;
        if (attempt === 0 && upstream?.generation !== session.generation) {
          log(`sending ${describe(message)} again on a new session`);
          continue;
        }
        return refuse(message, error);
      }
    }
  }

  async function refuse(message: JSONRPCMessage, error: unknown): Promise<void> {
    if (finished) return;
    if (isJSONRPCRequest(message) && requests.settle(message.id)) {
      await sendToStdio(
        errorAnswer(
          message.id,
          `The LuaPanda MCP server at ${href} could not take ${message.method}: ${causeText(error)}`,
        ),
      );
    } else {
      log(`could not forward ${describe(message)} to ${href}: ${causeText(error)}`);
    }
  }

  async function finish(result: BridgeResult): Promise<BridgeResult> {
    if (finished) return done;
    finished = result;
    stdin.off('end', onStdinEnd);
    stdin.off('close', onStdinEnd);
    stdout.off('error', onStdoutError);
    const session = latest?.transport;
    if (result.exitCode !== 0) {
      log(result.reason);
      // Every request still waiting gets the reason, rather than silence.
      const answers = requests
        .waiting()
        .map((id) => stdio.send(errorAnswer(id, result.reason)).catch(() => undefined));
      await settleWithin(Promise.all(answers), 1000);
    } else if (session?.sessionId !== undefined && upstream !== undefined) {
      // A clean end: end the HTTP session too, so the server forgets it at once.
      await settleWithin(session.terminateSession(), 2000);
    }
    requests.clear();
    await session?.close().catch(() => undefined);
    await stdio.close().catch(() => undefined);
    ended.resolve(result);
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
  await stdio.start();
  // Connect now rather than at the first message: the wait (if any) is announced at once, and the
  // session is ready when the client speaks.
  void ensureUpstream().catch(() => undefined);
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

function describe(message: JSONRPCMessage): string {
  if (isJSONRPCRequest(message)) return `request ${message.method} (id ${String(message.id)})`;
  if (isJSONRPCNotification(message)) return `notification ${message.method}`;
  return 'an answer';
}
