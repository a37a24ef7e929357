/**
 * A raw peer for the pairing tests: it connects to a game that listens (startServer) over real
 * TCP on 127.0.0.1, sends exactly the frames a test chooses (an honest IDE, a stranger, garbage,
 * a replay) and records every frame the game sends, until the game closes the link.
 */
import * as net from 'node:net';
import { Waiters } from '../harness/waiters';

export interface PeerFrame {
  readonly cmd: unknown;
  readonly callbackId: unknown;
  // The runtime sends arbitrary JSON; tests read it field by field.
  readonly info: Record<string, unknown>;
  /** A stop's frames. */
  readonly stack?: { readonly index: unknown }[];
}

export class PairingPeer {
  readonly frames: PeerFrame[] = [];
  closed = false;
  private buffer = '';
  private cursor = 0;
  private readonly waiters = new Waiters();

  private constructor(private readonly socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.setNoDelay(true);
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      let at: number;
      while ((at = this.buffer.indexOf('\n')) >= 0) {
        const line = this.buffer
          .slice(0, at)
          .replace(/\|\*\|\s*$/, '')
          .trim();
        this.buffer = this.buffer.slice(at + 1);
        if (line !== '') this.frames.push(JSON.parse(line) as PeerFrame);
      }
      this.waiters.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.waiters.wake();
    });
    socket.on('error', () => undefined);
  }

  /**
   * Connects to `host:port`, retrying while the game is not listening (it listens again only at
   * its next attempt after a link ended), for at most `timeoutMs`.
   */
  static async connect(port: number, host = '127.0.0.1', timeoutMs = 10_000): Promise<PairingPeer> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        const socket = await new Promise<net.Socket>((resolve, reject) => {
          const s = net.connect({ port, host }, () => resolve(s));
          s.once('error', reject);
        });
        return new PairingPeer(socket);
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`cannot connect to ${host}:${port}: ${(error as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  send(
    cmd: string,
    info: object,
    callbackId = String(Math.floor(Math.random() * 1e6) + 1),
  ): string {
    this.socket.write(JSON.stringify({ cmd, callbackId, info }) + ' |*|\n');
    return callbackId;
  }

  write(text: string): void {
    this.socket.write(text);
  }

  /** The next frame (after the ones already taken) that `predicate` accepts. */
  next(predicate: (f: PeerFrame) => boolean = () => true, timeoutMs = 10_000): Promise<PeerFrame> {
    return this.waiters.wait(
      () => {
        while (this.cursor < this.frames.length) {
          const f = this.frames[this.cursor++];
          if (predicate(f)) return f;
        }
        if (this.closed) throw new Error(`closed; frames: ${JSON.stringify(this.frames)}`);
        return undefined;
      },
      timeoutMs,
      () => `no such frame within ${timeoutMs} ms; frames: ${JSON.stringify(this.frames)}`,
    );
  }

  /** Sends `cmd` and waits for its reply. */
  async request(cmd: string, info: object, timeoutMs = 10_000): Promise<PeerFrame> {
    const id = this.send(cmd, info);
    return this.next((f) => f.callbackId === id, timeoutMs);
  }

  /** Resolves once the game has closed the link. */
  whenClosed(timeoutMs = 10_000): Promise<true> {
    return this.waiters.wait(
      () => (this.closed ? true : undefined),
      timeoutMs,
      () => `the game kept the link open; frames: ${JSON.stringify(this.frames)}`,
    );
  }

  close(): void {
    this.socket.destroy();
  }
}
