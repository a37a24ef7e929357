/**
 * The listening sockets of the MCP HTTP server: one port on 127.0.0.1 and, when the machine has
 * IPv6 loopback, the same port on [::1] (clients that resolve `localhost` to ::1 find the server
 * too). With port 0 the port is one free on both. A taken port is a `PortInUseError` that says what
 * to do; closing is bounded (connections still open at the deadline are destroyed).
 */
import { errorText } from '../../common/errorText';
import * as http from 'node:http';
import type { Socket } from 'node:net';

/** Thrown by `startHttpServer` when the port is taken (EADDRINUSE), with a message saying what to do. */
export class PortInUseError extends Error {
  readonly code = 'EADDRINUSE';
  constructor(
    readonly port: number,
    readonly address: string,
  ) {
    super(
      `Port ${port} on ${address} is already in use — most likely another LuaPanda MCP server ` +
        `(another VS Code window or a headless luapanda-mcp) or another program. ` +
        `See who answers at http://127.0.0.1:${port}/health, stop that process, ` +
        `or choose another port (setting luapanda.mcp.port, or luapanda-mcp --http <port>).`,
    );
    this.name = 'PortInUseError';
  }
}

/** With port 0, how often to pick another port when the one 127.0.0.1 got is taken on ::1. */
const PORT_RETRIES = 5;
/** Bound on closing the IPv4 listener again when the start fails. */
const FAILED_START_CLOSE_MS = 1000;

export class DualStackListener {
  private readonly sockets = new Set<Socket>();
  private readonly v4: http.Server;
  private v6: http.Server | undefined;
  private boundPort = 0;

  /** `log` gets one line of diagnostics each (prefixed `mcp http:`). */
  constructor(
    private readonly onRequest: http.RequestListener,
    private readonly log: (line: string) => void,
  ) {
    this.v4 = this.makeServer();
  }

  /** The port bound; before `listen()` has finished, the port asked for. */
  get port(): number {
    return this.boundPort;
  }

  /** Whether [::1] is bound too. */
  get ipv6(): boolean {
    return this.v6 !== undefined;
  }

  /**
   * Binds 127.0.0.1:`port`, then (unless `ipv6` is false) [::1] on the same port; a machine without
   * IPv6 loopback is served on 127.0.0.1 only. Rejects with `PortInUseError` when the port is taken
   * (with port 0: after a few tries at another one); nothing stays bound then.
   */
  async listen(port: number, ipv6 = true): Promise<void> {
    this.boundPort = port;
    try {
      this.boundPort = await listen(this.v4, '127.0.0.1', port);
      if (ipv6) {
        // With port 0 the kernel chose a port free on 127.0.0.1; ::1 may still hold it elsewhere.
        for (let attempt = 0; ; attempt++) {
          const candidate = this.makeServer();
          try {
            await listen(candidate, '::1', this.boundPort, true);
            this.v6 = candidate;
            break;
          } catch (error) {
            if (isNoIpv6(error)) {
              this.log(
                `mcp http: no IPv6 loopback here (${errorText(error)}); serving 127.0.0.1 only`,
              );
              break;
            }
            if (error instanceof PortInUseError && port === 0 && attempt < PORT_RETRIES) {
              await closeServer(this.v4, this.sockets, FAILED_START_CLOSE_MS);
              this.boundPort = await listen(this.v4, '127.0.0.1', 0);
              continue;
            }
            throw error;
          }
        }
      }
    } catch (error) {
      await closeServer(this.v4, this.sockets, FAILED_START_CLOSE_MS);
      throw error;
    }
    for (const server of [this.v4, this.v6]) {
      server?.on('error', (error) => this.log(`mcp http: listener error: ${errorText(error)}`));
    }
  }

  /** Stops accepting at once (idle keep-alive connections close now); resolves when both listeners
   * are closed, destroying the connections still open after `timeoutMs`. */
  close(timeoutMs: number): Promise<void> {
    return Promise.all(
      [this.v4, this.v6].map((server) =>
        server ? closeServer(server, this.sockets, timeoutMs) : undefined,
      ),
    ).then(() => undefined);
  }

  private makeServer(): http.Server {
    const server = http.createServer(this.onRequest);
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    return server;
  }
}

function listen(
  server: http.Server,
  host: string,
  port: number,
  ipv6Only = false,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port, host) : error);
    };
    const onListening = (): void => {
      server.off('error', onError);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ host, port, ipv6Only, exclusive: true });
  });
}

/** Closes a listener; connections still open after `timeoutMs` are destroyed. */
function closeServer(server: http.Server, sockets: Set<Socket>, timeoutMs: number): Promise<void> {
  if (!server.listening) return Promise.resolve();
  return new Promise((resolve) => {
    const deadline = Date.now() + timeoutMs;
    // server.close() drops the connections idle at that moment only; a keep-alive connection whose
    // last response (an event stream) ends later would hold the listener open: keep sweeping.
    const sweep = setInterval(() => {
      server.closeIdleConnections();
      if (Date.now() >= deadline) {
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      }
    }, 20);
    server.close(() => {
      clearInterval(sweep);
      resolve();
    });
    server.closeIdleConnections();
  });
}

function isNoIpv6(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'EADDRNOTAVAIL' || code === 'EAFNOSUPPORT' || code === 'EPROTONOSUPPORT';
}
