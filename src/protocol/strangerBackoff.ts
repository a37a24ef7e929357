/**
 * Peers that failed the pairing wait before the IDE's listener takes them again: a scan or a flood
 * of strangers from the network cannot keep the one connection slot busy (each would hold it
 * through the pairing's timeout) while the real game retries. Per address, the wait starts at
 * FIRST_WAIT_MS and doubles with each failure up to MAX_WAIT_MS; loopback is exempt, because the
 * game on this machine connects from there too. Bounded: the oldest address is forgotten first.
 */

const FIRST_WAIT_MS = 1_000;
const MAX_WAIT_MS = 60_000;
const MAX_ADDRESSES = 1_024;

interface Hold {
  readonly until: number;
  readonly waitMs: number;
}

/** Whether `host` (a socket's remoteAddress) is this machine. */
export function isLoopbackPeer(host: string): boolean {
  return host === '::1' || /^(::ffff:)?127\./.test(host);
}

export class StrangerBackoff {
  private readonly holds = new Map<string, Hold>();

  constructor(private readonly now: () => number = Date.now) {}

  /** A peer from `host` failed the pairing: it waits longer before it may try again. */
  failed(host: string): void {
    if (isLoopbackPeer(host)) return;
    const previous = this.holds.get(host);
    const waitMs = previous ? Math.min(previous.waitMs * 2, MAX_WAIT_MS) : FIRST_WAIT_MS;
    this.holds.delete(host);
    this.holds.set(host, { until: this.now() + waitMs, waitMs });
    if (this.holds.size > MAX_ADDRESSES) {
      const oldest = this.holds.keys().next().value;
      if (oldest !== undefined) this.holds.delete(oldest);
    }
  }

  /** Milliseconds `host` must still wait, or undefined when it may connect. */
  heldOffFor(host: string): number | undefined {
    const hold = this.holds.get(host);
    if (!hold) return undefined;
    const left = hold.until - this.now();
    return left > 0 ? left : undefined;
  }
}
