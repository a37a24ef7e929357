/**
 * A raw-TCP IDE for the runtime tests that must send what our own protocol layer never would:
 * upstream-style frames (random ids, "0", id-less requests, all-string values) and malformed
 * input. It records every frame the Lua side sends, byte for byte.
 */
import * as net from 'node:net';
import { Waiters } from '../harness/waiters';

export interface RawFrame {
  readonly text: string;
  // The Lua side sends arbitrary JSON; tests inspect it field by field.
  readonly json: Record<string, unknown>;
}

export class RawIde {
  readonly frames: RawFrame[] = [];
  raw = '';
  private socket: net.Socket | undefined;
  private buffer = '';
  private readonly waiters = new Waiters();
  private cursor = 0;
  closed = false;

  private constructor(private readonly server: net.Server) {}

  static async start(port = 0): Promise<RawIde> {
    const server = net.createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ port, host: '127.0.0.1' }, () => resolve());
    });
    return new RawIde(server);
  }

  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  }

  accept(timeoutMs = 10_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('no Lua connection')), timeoutMs);
      this.server.once('connection', (socket) => {
        clearTimeout(timer);
        this.socket = socket;
        socket.setNoDelay(true);
        socket.setEncoding('utf8');
        socket.on('data', (chunk: string) => this.onData(chunk));
        socket.on('close', () => {
          this.closed = true;
          this.wake();
        });
        socket.on('error', () => undefined);
        resolve();
      });
    });
  }

  /** Writes text exactly as given. */
  write(text: string): void {
    this.socket?.write(text);
  }

  /** Writes one upstream-style frame: JSON, a space, the delimiter, LF. */
  send(message: object): void {
    this.write(JSON.stringify(message) + ' |*|\n');
  }

  next(predicate: (f: RawFrame) => boolean, timeoutMs = 10_000): Promise<RawFrame> {
    const seen = () => this.frames.map((f) => f.json.cmd).join(',');
    return this.waiters.wait(
      () => {
        while (this.cursor < this.frames.length) {
          const f = this.frames[this.cursor++];
          if (predicate(f)) return f;
        }
        if (this.closed) throw new Error(`connection closed; frames: ${seen()}`);
        return undefined;
      },
      timeoutMs,
      () => `no matching frame in ${timeoutMs} ms; frames: ${seen()}`,
    );
  }

  cmd(cmd: string, timeoutMs?: number): Promise<RawFrame> {
    return this.next((f) => f.json.cmd === cmd, timeoutMs);
  }

  destroy(): void {
    this.socket?.destroy();
  }

  async close(): Promise<void> {
    this.socket?.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private onData(chunk: string): void {
    this.raw += chunk;
    this.buffer += chunk;
    let index: number;
    while ((index = this.buffer.indexOf('|*|\n')) >= 0) {
      const text = this.buffer.slice(0, index);
      this.buffer = this.buffer.slice(index + 4);
      this.frames.push({ text, json: JSON.parse(text) as Record<string, unknown> });
    }
    this.wake();
  }

  private wake(): void {
    this.waiters.wake();
  }
}

/** initSuccess as upstream's IDE sends it: every value a string. */
export function upstreamInit(
  cwd: string,
  overrides: Record<string, string> = {},
): Record<string, string> {
  return {
    stopOnEntry: 'false',
    luaFileExtension: '',
    cwd,
    isNeedB64EncodeStr: 'true',
    TempFilePath: cwd,
    logLevel: '1',
    pathCaseSensitivity: 'false',
    OSType: 'Linux',
    clibPath: '/nonexistent/',
    useCHook: 'true',
    adapterVersion: '3.3.1',
    autoPathMode: 'true',
    distinguishSameNameFile: 'false',
    truncatedOPath: '',
    DevelopmentMode: 'false',
    ...overrides,
  };
}
