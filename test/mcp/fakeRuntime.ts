/**
 * A fake Lua side over real TCP, for the tests of waits that must end at the agent's deadline:
 * it connects to the debugger's attach port like a game (retrying until the port listens),
 * completes the handshake, answers what starting a session and reading a stop need — and never
 * answers the commands that set the program going (continue, the steps, pause), as a game stuck
 * in native code would not. `stop()` reports a stop whenever a test wants one; `stopAfter` makes
 * a silent command stop the program later anyway.
 */
import * as net from 'node:net';
import { DecodedFrame, FrameDecoder, encodeFrame } from '../../src/protocol';

/** Commands the fake never answers. */
export const SILENT_COMMANDS = ['continue', 'stopOnStep', 'stopOnStepIn', 'stopOnStepOut', 'pause'];

const ANSWERS: Record<string, unknown> = {
  initSuccess: {
    debuggerVer: 'fake',
    runtime: 'fake-runtime',
    features: ['pause', 'configurationDone'],
  },
  configurationDone: {},
  setBreakPoint: [],
  getVariable: [{ name: 'answer', type: 'number', value: '42', variablesReference: '0' }],
  getWatchedVariable: [],
  stopRun: {},
};

interface IdeFrame {
  cmd?: string;
  callbackId?: string;
}

export interface FakeRuntimeOptions {
  /** Report a stop on entry once the session is configured. */
  stopOnEntry?: boolean;
  /** A silent command still stops the program after this many ms (never answered, though). */
  stopAfterMs?: number;
}

export class FakeRuntime {
  /** Commands received, in order. */
  readonly received: string[] = [];
  private readonly timers = new Set<NodeJS.Timeout>();
  private constructor(
    private readonly socket: net.Socket,
    private readonly options: FakeRuntimeOptions,
  ) {
    const decoder = new FrameDecoder({
      onFrame: (frame) => this.onFrame(frame),
      onError: () => undefined,
    });
    socket.on('data', (chunk: Buffer) => decoder.write(chunk));
    socket.on('error', () => undefined);
  }

  /** Connects to 127.0.0.1:`port`, trying again every 50 ms for up to `withinMs`. */
  static async connect(
    port: number,
    options: FakeRuntimeOptions = {},
    withinMs = 10_000,
  ): Promise<FakeRuntime> {
    const deadline = Date.now() + withinMs;
    for (;;) {
      try {
        const socket = await new Promise<net.Socket>((resolve, reject) => {
          const s = net.createConnection({ host: '127.0.0.1', port }, () => resolve(s));
          s.once('error', reject);
        });
        return new FakeRuntime(socket, options);
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  /** Reports a stop at line `line` of `fake.lua`. */
  stop(cmd = 'stopOnBreakpoint', line = 3): void {
    const frame = { file: 'fake.lua', line, index: 2, name: 'update' };
    this.socket.write(encodeFrame({ cmd, callbackId: '0', stack: [frame], info: {} }));
  }

  close(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.socket.destroy();
  }

  private onFrame({ json }: DecodedFrame): void {
    const frame = json as IdeFrame;
    const cmd = frame.cmd ?? '';
    this.received.push(cmd);
    if (SILENT_COMMANDS.includes(cmd)) {
      const later = this.options.stopAfterMs;
      if (later !== undefined) {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          this.stop('stopOnStep', 4);
        }, later);
        this.timers.add(timer);
      }
      return;
    }
    if (cmd in ANSWERS && frame.callbackId) {
      this.socket.write(encodeFrame({ cmd, callbackId: frame.callbackId, info: ANSWERS[cmd] }));
    }
    if (cmd === 'configurationDone' && this.options.stopOnEntry) this.stop('stopOnEntry', 1);
  }
}
