/**
 * The stdio bridge's HTTP session with the server (stdioBridge.ts): one in use at a time, opened
 * once the server answers (waited for within the bound, bridgeReach.ts) with the client's
 * `initialize` replayed on every session after the first (bridgeInitialize.ts). When the session
 * is lost (bridgeUpstream.ts) the requests that ran on it are answered with the loss and a new one
 * is opened at once, so that the server's notifications reach the client again without waiting
 * for a request. Messages from the server go to `onMessage`, from the session in use only.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describeHealth, type ProbeResult } from './bridgeProbe';
import type { InitializeReplay } from './bridgeInitialize';
import { reachServer, type ReachOptions } from './bridgeReach';
import { errorAnswer, type BridgeRequests } from './bridgeRequests';
import type { BridgeResult, SessionAtEnd } from './bridgeShutdown';
import { createUpstream, type Upstream } from './bridgeUpstream';

/** Thrown by `bridgeStdioToHttp` when the HTTP server cannot be used at all. */
export class BridgeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BridgeError';
  }
}

/** How to reach the server (bridgeReach.ts), and the other parts of the bridge. */
export interface SessionParts extends Omit<ReachOptions, 'stopped' | 'intervalMs'> {
  requests: BridgeRequests;
  initialize: InitializeReplay;
  /** A message from the session in use, for the client. */
  onMessage: (message: JSONRPCMessage, from: Upstream) => void;
  /** A message of the bridge's own for the client (dropped once the bridge has ended). */
  toClient: (message: JSONRPCMessage) => Promise<void>;
  /** How the bridge ended, or undefined while it runs. */
  finished: () => BridgeResult | undefined;
  /** Ends the bridge: the server refuses us, or cannot be reached within the bound. */
  fail: (reason: string) => void;
}

export class BridgeSessions {
  /** The session in use; undefined while (re)connecting. */
  private upstream: Upstream | undefined;
  /** The newest session made, in use or being initialized: closed at the end. */
  private latest: Upstream | undefined;
  private connecting: Promise<Upstream> | undefined;
  /** Generation of the newest session (0 before the first). */
  generation = 0;

  /** `firstProbe`: the probe made before the bridge started, used for the first wait. */
  constructor(
    private readonly parts: SessionParts,
    private firstProbe: ProbeResult | undefined,
  ) {}

  /** Generation of the session in use, or undefined while (re)connecting. */
  get inUse(): number | undefined {
    return this.upstream?.generation;
  }

  /** What the bridge's end closes. */
  atEnd(): SessionAtEnd {
    return { transport: this.latest?.transport, inUse: this.upstream !== undefined };
  }

  /** The session in use, or a new one once the server answers (within the wait bound). */
  ensure(): Promise<Upstream> {
    if (this.upstream) return Promise.resolve(this.upstream);
    this.connecting ??= this.connect().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private open(gen: number): Upstream {
    const { endpoint, headers, log, fail, finished } = this.parts;
    const made = createUpstream(endpoint, headers, gen, {
      lost: (cause) => this.lost(gen, cause),
      refused: (reason) => fail(reason),
      error: (message) => {
        if (!finished() && gen === this.generation) log(`http: ${message}`);
      },
    });
    made.transport.onmessage = (message) => {
      if (gen !== this.generation || finished()) return; // a closed session's last words
      this.parts.onMessage(message, made);
    };
    return made;
  }

  private async connect(): Promise<Upstream> {
    const { endpoint, log, finished, fail, initialize } = this.parts;
    const first = this.generation === 0;
    const known = this.firstProbe;
    this.firstProbe = undefined;
    const reached = await reachServer(
      { ...this.parts, stopped: () => finished() !== undefined },
      known,
    );
    // A bridge that ended while it waited for the server stops here.
    const ended = finished();
    if (!known?.ok && ended) throw new BridgeError(ended.reason);
    if (!reached.ok) {
      fail(reached.reason);
      throw new BridgeError(reached.reason);
    }
    const verb = first ? 'bridging stdio to' : 'reconnected to';
    log(`${verb} ${endpoint.href}${describeHealth(reached.health)}`);

    const next = this.open(++this.generation);
    this.latest = next;
    await next.transport.start();
    if (initialize.needed) {
      try {
        await initialize.replay(next);
      } catch (error) {
        void next.transport.close().catch(() => undefined);
        throw error;
      }
    }
    const endedNow = finished();
    if (endedNow) throw new BridgeError(endedNow.reason);
    this.upstream = next;
    return next;
  }

  /** The session `gen` is gone: answer what ran on it, and open a new one at once. */
  private lost(gen: number, cause: string): void {
    if (this.parts.finished() || this.upstream?.generation !== gen) return;
    const old = this.upstream;
    this.upstream = undefined;
    const href = this.parts.endpoint.href;
    const { waitSeconds } = this.parts;
    this.parts.log(
      `Lost the LuaPanda MCP server session at ${href}: ${cause}. ` +
        (waitSeconds > 0 ? `Reconnecting (waiting up to ${waitSeconds} s).` : 'Trying once more.'),
    );
    void old.transport.close().catch(() => undefined);
    for (const { id, method } of this.parts.requests.takeLostOn(gen)) {
      void this.parts.toClient(
        errorAnswer(
          id,
          `The LuaPanda MCP server at ${href} went away while ${method} ran (${cause}); ` +
            `its answer is lost. The bridge reconnects: send the request again.`,
        ),
      );
    }
    void this.ensure().catch(() => undefined);
  }
}
