/**
 * A test-side IDE: listens on a free loopback port with the real `LuaListener`, accepts one Lua
 * connection and records everything it sends, so a test can wait for a particular notification
 * (bounded) and inspect protocol errors. The runtime tests use it to drive `LuaPanda.lua`.
 * Every frame the runtime sends is checked against the protocol's zod schemas, and a test whose
 * run produced protocol errors fails (the root hooks ask `unexpectedProtocolErrors`), unless it
 * said which ones it expects (`expectProtocolErrors`).
 */
import {
  HandshakeSettings,
  InitSuccessReply,
  LuaConnection,
  LuaListener,
  LuaNotification,
  ProtocolError,
  ProtocolErrorCode,
  initSuccessInfo,
} from '../../src/protocol';
import { Waiters } from './waiters';

type Predicate = (notification: LuaNotification) => boolean;

/** The test IDEs whose errors the root hooks have not all seen yet. */
const watched = new Set<TestIde>();

export class TestIde {
  readonly notifications: LuaNotification[] = [];
  readonly protocolErrors: ProtocolError[] = [];
  private connectionValue: LuaConnection | undefined;
  private readonly waiters = new Waiters();
  private cursor = 0;
  private readonly expectedErrors = new Set<ProtocolErrorCode>();
  /** How many of `protocolErrors` the root hooks have looked at. */
  private errorsSeen = 0;
  private closed = false;

  private constructor(readonly listener: LuaListener) {}

  static async start(
    options: { port?: number; requestTimeoutMs?: number; maxFrameBytes?: number } = {},
  ): Promise<TestIde> {
    const listener = await LuaListener.listen({ port: 0, host: '127.0.0.1', ...options });
    const ide = new TestIde(listener);
    watched.add(ide);
    return ide;
  }

  /**
   * The protocol errors that test IDEs saw since the last call and that their tests did not
   * expect, described; the root hooks fail a test that leaves any.
   */
  static unexpectedProtocolErrors(): string[] {
    const found: string[] = [];
    for (const ide of watched) {
      for (const error of ide.protocolErrors.slice(ide.errorsSeen)) {
        if (ide.expectedErrors.has(error.code)) continue;
        found.push(`${error.code}: ${error.message}${error.excerpt ? ` [${error.excerpt}]` : ''}`);
      }
      ide.errorsSeen = ide.protocolErrors.length;
      if (ide.closed) watched.delete(ide);
    }
    return found;
  }

  /** This test provokes protocol errors of these codes on purpose (others still fail it). */
  expectProtocolErrors(...codes: ProtocolErrorCode[]): this {
    for (const code of codes) this.expectedErrors.add(code);
    return this;
  }

  get port(): number {
    return this.listener.port;
  }

  get connection(): LuaConnection {
    if (!this.connectionValue) throw new Error('No Lua program has connected yet');
    return this.connectionValue;
  }

  /** Waits for the Lua side to connect and starts recording what it sends. */
  async accept(timeoutMs = 10_000): Promise<LuaConnection> {
    const connection = await this.listener.waitForConnection({ timeoutMs });
    this.connectionValue = connection;
    connection.on('notification', (n) => {
      this.notifications.push(n);
      this.wake();
    });
    connection.on('protocolError', (e) => {
      this.protocolErrors.push(e);
      this.wake();
    });
    connection.on('close', () => this.wake());
    return connection;
  }

  /** Sends `initSuccess` (upstream defaults plus `settings`) and returns Lua's reply. */
  handshake(settings: HandshakeSettings = {}): Promise<InitSuccessReply> {
    return this.connection.request(
      'initSuccess',
      initSuccessInfo({ isNeedB64EncodeStr: false, ...settings }),
    );
  }

  /**
   * The next notification after the ones already consumed that matches `predicate`; earlier
   * non-matching ones are skipped. Rejects on timeout or when the connection closes first.
   */
  next(predicate: Predicate = () => true, timeoutMs = 10_000): Promise<LuaNotification> {
    return this.waiters.wait(
      () => {
        while (this.cursor < this.notifications.length) {
          const candidate = this.notifications[this.cursor++];
          if (predicate(candidate)) return candidate;
        }
        if (this.connectionValue?.closed) {
          throw new Error('The Lua connection closed before the expected notification');
        }
        return undefined;
      },
      timeoutMs,
      () => {
        const seen = this.notifications.map((n) => n.cmd).join(', ') || 'nothing';
        return `No matching notification within ${timeoutMs} ms (seen: ${seen})`;
      },
    );
  }

  /** The next stop notification (any stop command unless one is given). */
  async nextStop(cmd?: string, timeoutMs = 10_000) {
    const stop = await this.next(
      (n) => n.kind === 'stop' && (cmd === undefined || n.cmd === cmd),
      timeoutMs,
    );
    if (stop.kind !== 'stop') throw new Error('unreachable');
    return stop;
  }

  /** Resolves when the connection has closed (bounded). */
  async waitForClose(timeoutMs = 10_000): Promise<void> {
    const connection = this.connection;
    if (connection.closed) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`The Lua connection stayed open for ${timeoutMs} ms`)),
        timeoutMs,
      );
      connection.once('close', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.connectionValue?.destroy();
    await this.listener.close();
  }

  private wake(): void {
    this.waiters.wake();
  }
}
