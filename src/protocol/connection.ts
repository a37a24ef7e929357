/**
 * One live link to a Lua side, over any duplex byte stream (a TCP socket in practice).
 * `request` sends a command with a fresh callbackId and resolves with the reply's validated
 * `info`; `notify` sends one without an id. Notifications, protocol errors and the end of the link
 * are events — never exceptions — so a misbehaving peer cannot take the IDE down.
 */
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { NO_TRACE, Tracer } from '../common/trace';
import { ConnectionClosedError, ProtocolError } from './errors';
import { FrameDecoder, OUTGOING_SUFFIX, encodeFrame } from './framing';
import { classifyFrame, describeIssues } from './inbound';
import {
  IdeCommand,
  IdeRequestInfo,
  LuaNotification,
  LuaVariable,
  ReplyInfo,
  RequestCommand,
  ideToLuaSchemas,
  replySchemas,
} from './messages';
import { CallbackRegistry } from './registry';

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** How long `close()` waits for the peer to finish the TCP close before destroying the socket. */
const CLOSE_GRACE_MS = 1_000;

export interface LuaConnectionOptions {
  requestTimeoutMs?: number;
  maxFrameBytes?: number;
  /** Randomness for callbackIds; tests inject a seeded one. */
  random?: () => number;
  /** Traces every frame both ways (`wire.send`, `wire.receive`). */
  tracer?: Tracer;
}

export interface CloseInfo {
  /** The socket error that ended the link, if any. */
  readonly error?: Error;
}

export interface LuaConnectionEvents {
  notification: [LuaNotification];
  protocolError: [ProtocolError];
  /** A reply frame without callbackId (upstream answers id-less requests this way). */
  unsolicitedReply: [string];
  close: [CloseInfo];
}

export class LuaConnection extends EventEmitter<LuaConnectionEvents> {
  private readonly registry: CallbackRegistry;
  private readonly decoder: FrameDecoder;
  private writeChain: Promise<void> = Promise.resolve();
  private closedWith: CloseInfo | undefined;
  private socketError: Error | undefined;
  /** Set from Lua's `initSuccess` echo: string values in array replies are base64 (doc 2.5). */
  private base64Strings = false;
  private readonly tracer: Tracer;

  constructor(
    private readonly stream: Duplex,
    options: LuaConnectionOptions = {},
  ) {
    super();
    this.tracer = options.tracer ?? NO_TRACE;
    this.registry = new CallbackRegistry({
      defaultTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
      random: options.random,
      onDropped: (error) => this.protocolError(error),
    });
    this.decoder = new FrameDecoder({
      maxFrameBytes: options.maxFrameBytes,
      onFrame: ({ json, text }) => {
        this.tracer.log('wire.receive', text);
        this.dispatch(json, text);
      },
      onError: (error) => this.protocolError(error),
    });
    const socket = stream as Partial<Socket>;
    socket.setNoDelay?.(true);
    stream.on('data', (chunk: Buffer) => this.decoder.write(chunk));
    stream.on('error', (error) => {
      this.socketError = error;
    });
    stream.on('close', () => this.onClosed());
    if (stream.destroyed) queueMicrotask(() => this.onClosed());
  }

  get closed(): boolean {
    return this.closedWith !== undefined;
  }

  /** `host:port` of the peer, when the stream is a socket. */
  get remoteAddress(): string | undefined {
    const socket = this.stream as Partial<Socket>;
    return socket.remoteAddress ? `${socket.remoteAddress}:${socket.remotePort}` : undefined;
  }

  /** Number of requests waiting for a reply. */
  get pendingRequests(): number {
    return this.registry.size;
  }

  /** Sends `cmd` with a fresh callbackId and resolves with the validated reply. */
  async request<C extends RequestCommand & IdeCommand>(
    cmd: C,
    info: IdeRequestInfo<C>,
    options: { timeoutMs?: number } = {},
  ): Promise<ReplyInfo<C>> {
    checkOutgoing(cmd, info);
    const { id, reply } = this.registry.register(cmd, options.timeoutMs);
    if (id !== '') {
      this.write({ callbackId: id, cmd, info }).catch((error: Error) =>
        this.registry.fail(id, error),
      );
    }
    const raw = await reply;
    const parsed = replySchemas[cmd].safeParse(raw ?? []);
    if (!parsed.success) {
      throw new ProtocolError(
        'invalid-message',
        `The reply to '${cmd}' has an unexpected shape (${describeIssues(parsed.error)}).`,
      );
    }
    const result = parsed.data as ReplyInfo<C>;
    if (cmd === 'initSuccess') {
      this.base64Strings = (result as ReplyInfo<'initSuccess'>).isNeedB64EncodeStr === true;
    } else if (this.base64Strings && BASE64_REPLIES.has(cmd)) {
      for (const variable of result as LuaVariable[]) {
        if (variable.type === 'string') variable.value = decodeBase64Text(variable.value);
      }
    }
    return result;
  }

  /** Whether Lua sends string values base64-encoded (as negotiated in `initSuccess`). */
  get stringsAreBase64(): boolean {
    return this.base64Strings;
  }

  /** Sends `cmd` without a callbackId; resolves once the frame is handed to the socket. */
  notify<C extends IdeCommand>(cmd: C, info: IdeRequestInfo<C>): Promise<void> {
    checkOutgoing(cmd, info);
    return this.write({ cmd, info });
  }

  /** Ends the link. Pending requests reject with `ConnectionClosedError`. */
  async close(): Promise<void> {
    if (this.closedWith) return;
    const closed = new Promise<void>((resolve) => this.once('close', () => resolve()));
    this.stream.end();
    const timer = setTimeout(() => this.stream.destroy(), CLOSE_GRACE_MS);
    await closed;
    clearTimeout(timer);
  }

  /** Drops the link at once, without a graceful close. */
  destroy(): void {
    this.stream.destroy();
  }

  private dispatch(json: unknown, text: string): void {
    const inbound = classifyFrame(json, text);
    switch (inbound.kind) {
      case 'reply':
        this.registry.settle(
          inbound.envelope.callbackId,
          inbound.envelope.cmd,
          inbound.envelope.info,
        );
        return;
      case 'notification':
        this.emit('notification', inbound.notification);
        return;
      case 'unsolicited-reply':
        this.emit('unsolicitedReply', inbound.cmd);
        return;
      case 'error':
        this.protocolError(inbound.error);
        return;
    }
  }

  /** A frame that could not be used: traced after the frame itself, then told to listeners. */
  private protocolError(error: ProtocolError): void {
    this.tracer.log('wire.receive', () => `(protocol error: ${error.code}) ${error.message}`);
    this.emit('protocolError', error);
  }

  /** Queues a frame; a write that fills the socket's buffer holds later ones until 'drain'. */
  private write(message: object): Promise<void> {
    const frame = encodeFrame(message);
    // The frame as it goes out, without its delimiter (as received frames are traced).
    if (this.tracer.enabled('wire.send')) {
      this.tracer.log('wire.send', frame.slice(0, frame.length - OUTGOING_SUFFIX.length));
    }
    const written = this.writeChain.then(() => this.writeNow(frame));
    this.writeChain = written.catch(() => undefined);
    return written;
  }

  private writeNow(frame: string): Promise<void> {
    if (this.closedWith || this.stream.destroyed || this.stream.writableEnded) {
      return Promise.reject(new ConnectionClosedError());
    }
    if (this.stream.write(frame, 'utf8')) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onDrain = () => {
        this.stream.off('close', onClose);
        resolve();
      };
      const onClose = () => {
        this.stream.off('drain', onDrain);
        reject(new ConnectionClosedError());
      };
      this.stream.once('drain', onDrain);
      this.stream.once('close', onClose);
    });
  }

  private onClosed(): void {
    if (this.closedWith) return;
    this.closedWith = { error: this.socketError };
    this.decoder.end();
    const reason = this.socketError
      ? new ConnectionClosedError(
          `The connection to the Lua side failed: ${this.socketError.message}`,
        )
      : new ConnectionClosedError();
    this.registry.dispose(reason);
    this.emit('close', this.closedWith);
  }
}

/** Replies whose array elements carry base64 string values when that option is on. */
const BASE64_REPLIES: ReadonlySet<string> = new Set([
  'getVariable',
  'getWatchedVariable',
  'runREPLExpression',
]);

function decodeBase64Text(value: string): string {
  return Buffer.from(value, 'base64').toString('utf8');
}

/** Outgoing messages are checked against their schema: a bad one is our bug, caught early. */
function checkOutgoing(cmd: IdeCommand, info: unknown): void {
  const schema = ideToLuaSchemas[cmd];
  if (!schema) throw new TypeError(`'${String(cmd)}' is not a command of the protocol`);
  const parsed = schema.safeParse(info);
  if (!parsed.success) {
    throw new TypeError(`Invalid '${cmd}' request: ${describeIssues(parsed.error)}`);
  }
}
