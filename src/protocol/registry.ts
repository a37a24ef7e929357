/**
 * Pending requests by callbackId (protocol doc 3.2/3.3). Ids are random decimal strings in
 * 10..999999999 (below 10 is reserved), unique among pending requests. Each request settles
 * exactly once: by its reply, by its timeout, or by `dispose`. A reply for an id we gave up on,
 * or for an id we never issued, is reported and dropped, never delivered to anyone.
 *
 * Upstream Lua keeps a single id slot and can echo a stale id, so a reply also has to carry the
 * command of the request it answers; one that does not is reported as mismatched.
 */
import { ConnectionClosedError, ProtocolError, RequestTimeoutError } from './errors';

export const MIN_CALLBACK_ID = 10;
export const MAX_CALLBACK_ID = 999_999_999;
/** How many timed-out ids are remembered to tell a late reply from an unknown one. */
const EXPIRED_MEMORY = 256;

interface Pending {
  readonly cmd: string;
  readonly resolve: (info: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout | undefined;
}

export type ReplyOutcome = 'delivered' | 'unknown' | 'late' | 'mismatched';

export interface CallbackRegistryOptions {
  /** Default per-request timeout; 0 or less means no timeout. */
  defaultTimeoutMs: number;
  /** Source of randomness, injectable for tests. Must return a value in [0, 1). */
  random?: () => number;
  /** Where dropped replies are reported. */
  onDropped?: (error: ProtocolError) => void;
}

export class CallbackRegistry {
  private readonly pending = new Map<string, Pending>();
  private readonly expired = new Map<string, string>(); // id → cmd, insertion-ordered
  private disposedWith: Error | undefined;

  constructor(private readonly options: CallbackRegistryOptions) {}

  get size(): number {
    return this.pending.size;
  }

  has(id: string): boolean {
    return this.pending.has(id);
  }

  /**
   * Reserves an id for a request of command `cmd`. The returned promise settles with the reply's
   * `info`, or rejects with `RequestTimeoutError` / `ConnectionClosedError`.
   */
  register(
    cmd: string,
    timeoutMs = this.options.defaultTimeoutMs,
  ): { id: string; reply: Promise<unknown> } {
    if (this.disposedWith) {
      return { id: '', reply: Promise.reject(this.disposedWith) };
    }
    const id = this.freshId();
    const reply = new Promise<unknown>((resolve, reject) => {
      const timer =
        timeoutMs > 0 ? setTimeout(() => this.expire(id, timeoutMs), timeoutMs) : undefined;
      this.pending.set(id, { cmd, resolve, reject, timer });
    });
    return { id, reply };
  }

  /** Offers a frame that carries a callbackId; says what became of it. */
  settle(id: string, cmd: string, info: unknown): ReplyOutcome {
    const entry = this.pending.get(id);
    if (!entry) {
      const expiredCmd = this.expired.get(id);
      const late = expiredCmd !== undefined;
      this.options.onDropped?.(
        new ProtocolError(
          late ? 'late-reply' : 'unknown-reply',
          late
            ? `A '${cmd}' reply for request ${id} arrived after that request timed out; dropped.`
            : `A '${cmd}' reply carried callbackId ${id}, which no pending request has; dropped.`,
        ),
      );
      return late ? 'late' : 'unknown';
    }
    if (entry.cmd !== cmd) {
      this.options.onDropped?.(
        new ProtocolError(
          'mismatched-reply',
          `A '${cmd}' frame carried the callbackId of a pending '${entry.cmd}' request; dropped.`,
        ),
      );
      return 'mismatched';
    }
    this.remove(id, entry);
    entry.resolve(info);
    return 'delivered';
  }

  /** Rejects the pending request `id` (e.g. its frame could not be written). */
  fail(id: string, error: Error): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.remove(id, entry);
    entry.reject(error);
  }

  /** Rejects everything pending; later registrations reject at once. */
  dispose(error: Error = new ConnectionClosedError()): void {
    if (this.disposedWith) return;
    this.disposedWith = error;
    const entries = [...this.pending.entries()];
    this.pending.clear();
    for (const [, entry] of entries) {
      if (entry.timer) clearTimeout(entry.timer);
      entry.reject(error);
    }
  }

  private expire(id: string, timeoutMs: number): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    this.pending.delete(id);
    this.expired.set(id, entry.cmd);
    if (this.expired.size > EXPIRED_MEMORY) {
      const oldest = this.expired.keys().next().value;
      if (oldest !== undefined) this.expired.delete(oldest);
    }
    entry.reject(new RequestTimeoutError(entry.cmd, timeoutMs));
  }

  private remove(id: string, entry: Pending): void {
    if (entry.timer) clearTimeout(entry.timer);
    this.pending.delete(id);
  }

  private freshId(): string {
    const random = this.options.random ?? Math.random;
    const span = MAX_CALLBACK_ID - MIN_CALLBACK_ID + 1;
    // With at most a few pending requests among ~10^9 ids a clash is rare; a bounded number of
    // draws, then a linear probe, keeps this finite even with a broken random source.
    for (let attempt = 0; attempt < 32; attempt++) {
      const id = String(MIN_CALLBACK_ID + Math.floor(random() * span));
      if (!this.pending.has(id) && !this.expired.has(id)) return id;
    }
    for (let n = MIN_CALLBACK_ID; ; n++) {
      const id = String(n);
      if (!this.pending.has(id) && !this.expired.has(id)) return id;
    }
  }
}
