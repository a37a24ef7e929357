/**
 * TCP in both directions (protocol doc 1.1/1.2).
 *
 * `LuaListener`: the IDE listens (default port 8818) and the game calls `LuaPanda.start`. The
 * first connection is the active one. While it is active, a further connection is handed to the
 * `extra` listeners (several games on one port, each debugged in a session of its own) or, when
 * nobody listens for them, accepted and closed at once and reported as `rejected`: the Lua side
 * treats that as a lost link and keeps trying about once a second, so a second game takes over as
 * soon as the first one goes away.
 *
 * `connectToLua`: the game called `LuaPanda.startServer` and the IDE connects, retrying about once
 * a second (as upstream does) until it succeeds, times out or is aborted.
 */
import { EventEmitter } from 'node:events';
import * as net from 'node:net';
import { delay } from '../common/async';
import { LuaConnection, LuaConnectionOptions } from './connection';
import { StrangerBackoff } from './strangerBackoff';

export const DEFAULT_LUA_PORT = 8818;
export const DEFAULT_RETRY_INTERVAL_MS = 1_000;

export interface RejectedConnection {
  readonly remoteAddress: string;
  readonly reason: string;
}

export interface LuaListenerEvents {
  connection: [LuaConnection];
  /** A connection that came while another was active (see the header). */
  extra: [LuaConnection];
  rejected: [RejectedConnection];
  error: [Error];
}

export interface ListenOptions extends LuaConnectionOptions {
  port?: number;
  /** Interface to bind; default all interfaces (the session's connectors pass 127.0.0.1 unless
   * `connectionHost` says otherwise). */
  host?: string;
}

export class LuaListener extends EventEmitter<LuaListenerEvents> {
  private active: LuaConnection | undefined;
  private readonly sockets = new Set<net.Socket>();
  /** The peer address of each connection handed out, for holdOff. */
  private readonly peers = new WeakMap<object, string>();
  private readonly strangers = new StrangerBackoff();

  private constructor(
    private readonly server: net.Server,
    private readonly connectionOptions: LuaConnectionOptions,
  ) {
    super();
    server.on('connection', (socket) => this.accept(socket));
    server.on('error', (error) => this.emit('error', error));
  }

  /** Starts listening; rejects with a clear message when the port is taken. */
  static listen(options: ListenOptions = {}): Promise<LuaListener> {
    const { port = DEFAULT_LUA_PORT, host, ...connectionOptions } = options;
    const server = net.createServer({ noDelay: true });
    return new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        server.close();
        reject(describeListenError(error, port));
      };
      server.once('error', onError);
      server.listen({ port, host }, () => {
        server.off('error', onError);
        resolve(new LuaListener(server, connectionOptions));
      });
    });
  }

  /** The bound port (useful with port 0). */
  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  get activeConnection(): LuaConnection | undefined {
    return this.active;
  }

  /** Resolves with the next accepted connection, or rejects on timeout or abort. */
  waitForConnection(
    options: { timeoutMs?: number; signal?: AbortSignal } = {},
  ): Promise<LuaConnection> {
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        this.off('connection', onConnection);
        options.signal?.removeEventListener('abort', onAbort);
      };
      const onConnection = (connection: LuaConnection) => {
        cleanup();
        resolve(connection);
      };
      const onAbort = () => {
        cleanup();
        reject(abortError(options.signal));
      };
      const timer =
        options.timeoutMs !== undefined
          ? setTimeout(() => {
              cleanup();
              reject(
                new Error(
                  `No Lua program connected on port ${this.port} within ${options.timeoutMs} ms. ` +
                    `Check that the game calls require("LuaPanda").start(host, ${this.port}).`,
                ),
              );
            }, options.timeoutMs)
          : undefined;
      if (options.signal?.aborted) return onAbort();
      options.signal?.addEventListener('abort', onAbort);
      this.on('connection', onConnection);
    });
  }

  /**
   * The peer of `connection` failed the pairing: its address is refused for a while
   * (strangerBackoff.ts), so that strangers cannot keep the connection slot busy.
   */
  holdOff(connection: object): void {
    const host = this.peers.get(connection);
    if (host !== undefined) this.strangers.failed(host);
  }

  /** Stops listening and drops every socket, the active connection included. */
  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }

  private accept(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => {
      /* reported through the connection's close event */
    });
    const host = socket.remoteAddress ?? '';
    const heldOff = this.strangers.heldOffFor(host);
    if (heldOff !== undefined) {
      socket.destroy();
      this.emit('rejected', {
        remoteAddress: `${host}:${socket.remotePort}`,
        reason: `it failed the pairing; it may try again in ${Math.ceil(heldOff / 1000)} s`,
      });
      return;
    }
    if (this.active && !this.active.closed) {
      if (this.listenerCount('extra') > 0) {
        // Its own session owns it from now on: closing this listener does not end that game.
        this.sockets.delete(socket);
        const extra = new LuaConnection(socket, this.connectionOptions);
        this.peers.set(extra, host);
        this.emit('extra', extra);
        return;
      }
      const remoteAddress = `${socket.remoteAddress}:${socket.remotePort}`;
      socket.destroy();
      this.emit('rejected', {
        remoteAddress,
        reason: `a Lua program is already connected from ${this.active.remoteAddress ?? 'elsewhere'}`,
      });
      return;
    }
    const connection = new LuaConnection(socket, this.connectionOptions);
    this.peers.set(connection, host);
    this.active = connection;
    connection.once('close', () => {
      if (this.active === connection) this.active = undefined;
    });
    this.emit('connection', connection);
  }
}

export interface ConnectOptions extends LuaConnectionOptions {
  host: string;
  port?: number;
  /** Give up after this long; default: keep trying until aborted. */
  timeoutMs?: number;
  retryIntervalMs?: number;
  signal?: AbortSignal;
}

/** Connects to a Lua side that listens (`LuaPanda.startServer`), retrying until it answers. */
export async function connectToLua(options: ConnectOptions): Promise<LuaConnection> {
  const { host, port = DEFAULT_LUA_PORT, timeoutMs, signal } = options;
  const retryIntervalMs = options.retryIntervalMs ?? DEFAULT_RETRY_INTERVAL_MS;
  const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
  let lastError: Error | undefined;
  for (;;) {
    if (signal?.aborted) throw abortError(signal);
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      throw new Error(
        `Could not connect to a Lua program at ${host}:${port} within ${timeoutMs} ms` +
          (lastError ? ` (last error: ${lastError.message}).` : '.') +
          ` Check that the game called require("LuaPanda").startServer("0.0.0.0", ${port}).`,
      );
    }
    try {
      const socket = await connectOnce(host, port, Math.min(remaining, 5_000), signal);
      return new LuaConnection(socket, options);
    } catch (error) {
      if (signal?.aborted) throw abortError(signal);
      lastError = error as Error;
    }
    await delay(Math.min(retryIntervalMs, Math.max(0, deadline - Date.now())), { signal });
  }
}

function connectOnce(
  host: string,
  port: number,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection({ host, port, noDelay: true });
    const fail = (error: Error) => {
      cleanup();
      socket.destroy();
      reject(error);
    };
    const onAbort = () => fail(abortError(signal));
    const onError = (error: Error) => fail(error);
    const timer = setTimeout(
      () => fail(new Error(`connect timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    const cleanup = () => {
      clearTimeout(timer);
      socket.off('error', onError);
      signal?.removeEventListener('abort', onAbort);
    };
    socket.once('error', onError);
    signal?.addEventListener('abort', onAbort);
    socket.once('connect', () => {
      cleanup();
      resolve(socket);
    });
  });
}

function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  return reason instanceof Error ? reason : new Error('The operation was aborted.');
}

/** A listen failure in words; the system's error code stays on it (`code`). */
function describeListenError(error: NodeJS.ErrnoException, port: number): Error {
  const coded = (message: string): Error => Object.assign(new Error(message), { code: error.code });
  if (error.code === 'EADDRINUSE') {
    return coded(
      `Port ${port} is already in use: another debug session or program is listening there. ` +
        `Stop it, or choose another "connectionPort" (and pass the same port to LuaPanda.start).`,
    );
  }
  if (error.code === 'EACCES') {
    return coded(`Not allowed to listen on port ${port}; choose a port above 1023.`);
  }
  return coded(`Could not listen on port ${port}: ${error.message}`);
}
