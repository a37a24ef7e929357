/**
 * The open MCP sessions of the HTTP server and how long each may live: a session is busy while a
 * request is in flight or its client holds the event stream (GET) open. A session whose client
 * had that stream and lost it for `streamGoneMs` is closed (the client was killed or crashed; a
 * client that ends cleanly sends DELETE), and so is one idle for `idleMs` (a client that went away
 * with neither). Closing a session is closing its transport, which removes it from the table.
 */
import { errorText } from '../../common/errorText';
import { withTimeout } from '../../common/async';

/** What the table closes; for the HTTP server, the SDK's StreamableHTTPServerTransport. */
export interface ClosableTransport {
  close(): Promise<void>;
}

export interface TrackedSession<T extends ClosableTransport> {
  readonly id: string;
  readonly transport: T;
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

export interface SessionTableOptions {
  /** A session with nothing in flight, no event stream and no activity for this long is closed;
   * 0 turns the sweep off. */
  idleMs: number;
  /** A session whose client lost its event stream, with nothing in flight since, is closed after
   * this long; 0 leaves such sessions to the idle sweep. */
  streamGoneMs: number;
  log: (line: string) => void;
  /** Called with the number of open sessions whenever one opens or closes. */
  onChanged?: (count: number) => void;
}

/** The longest pause between two idle sweeps. */
const MAX_SWEEP_INTERVAL_MS = 60_000;

export class McpSessionTable<T extends ClosableTransport> {
  private readonly sessions = new Map<string, TrackedSession<T>>();
  private readonly sweep: NodeJS.Timeout | undefined;

  /** Starts the idle sweep (its timer does not keep Node running); `close()` stops it. */
  constructor(private readonly options: SessionTableOptions) {
    const { idleMs } = options;
    this.sweep =
      idleMs > 0
        ? setInterval(() => this.closeIdle(), Math.min(idleMs, MAX_SWEEP_INTERVAL_MS))
        : undefined;
    this.sweep?.unref();
  }

  /** Number of open sessions. */
  get size(): number {
    return this.sessions.size;
  }

  /** Number of sessions whose client holds its event stream open right now. */
  listeningCount(): number {
    return [...this.sessions.values()].filter((s) => s.streams > 0).length;
  }

  get(id: string): TrackedSession<T> | undefined {
    return this.sessions.get(id);
  }

  /** Enters a session the transport has just initialised. */
  add(id: string, transport: T): TrackedSession<T> {
    const session: TrackedSession<T> = {
      id,
      transport,
      inFlight: 0,
      streams: 0,
      hadStream: false,
      lastActivity: Date.now(),
    };
    this.sessions.set(id, session);
    this.options.log(`mcp http: session ${id} opened (${this.sessions.size} open)`);
    this.changed();
    return session;
  }

  /** Forgets the session `id` once its transport closed (and only if `transport` is still its). */
  remove(id: string, transport: T): void {
    const closed = this.sessions.get(id);
    if (closed?.transport !== transport) return;
    clearTimeout(closed.goneTimer);
    this.sessions.delete(id);
    this.options.log(`mcp http: session ${id} closed (${this.sessions.size} open)`);
    this.changed();
  }

  /**
   * Counts a request (POST, DELETE) or the event stream (GET) as open from now on. Returns what to
   * call when its response has closed, saying whether the stream was served (status 200, not a
   * refusal such as 409 for a second stream).
   */
  begin(session: TrackedSession<T>, kind: 'request' | 'stream'): (streamServed: boolean) => void {
    if (kind === 'stream') session.streams++;
    else session.inFlight++;
    session.lastActivity = Date.now();
    return (streamServed) => {
      if (kind === 'stream') {
        session.streams--;
        if (streamServed) session.hadStream = true;
      } else {
        session.inFlight--;
      }
      session.lastActivity = Date.now();
      this.watchForGoneClient(session);
    };
  }

  /** Stops the sweep and closes every session (their transports), waiting at most `timeoutMs`. */
  async close(timeoutMs: number): Promise<void> {
    if (this.sweep) clearInterval(this.sweep);
    // Closing a transport ends its SSE streams and aborts its running tool calls.
    await withTimeout(
      Promise.allSettled([...this.sessions.values()].map((session) => session.transport.close())),
      timeoutMs,
    );
    this.sessions.clear();
  }

  /** A client killed while it held its event stream: the stream ended and no request followed. */
  private watchForGoneClient(session: TrackedSession<T>): void {
    const { streamGoneMs } = this.options;
    if (streamGoneMs <= 0 || !session.hadStream) return;
    if (session.streams > 0 || session.inFlight > 0) return;
    clearTimeout(session.goneTimer);
    session.goneTimer = setTimeout(() => {
      session.goneTimer = undefined;
      if (this.sessions.get(session.id) !== session) return;
      // A request or a new stream since: the client is there (its end is watched again).
      if (session.streams > 0 || session.inFlight > 0) return;
      this.options.log(
        `mcp http: session ${session.id}: its client's event stream closed and did not come back ` +
          `within ${streamGoneMs} ms; the client is gone, closing the session`,
      );
      void session.transport.close().catch(() => undefined);
    }, streamGoneMs);
    session.goneTimer.unref();
  }

  /** Sessions whose client went away without DELETE and without an event stream to tell. */
  private closeIdle(): void {
    const now = Date.now();
    for (const session of this.sessions.values()) {
      if (
        session.inFlight === 0 &&
        session.streams === 0 &&
        now - session.lastActivity > this.options.idleMs
      ) {
        this.options.log(`mcp http: session ${session.id} idle, closing it`);
        void session.transport.close().catch(() => undefined);
      }
    }
  }

  private changed(): void {
    try {
      this.options.onChanged?.(this.sessions.size);
    } catch (error) {
      this.options.log(`mcp http: onSessionsChanged failed: ${errorText(error)}`);
    }
  }
}
