/**
 * How the bridge opens a new HTTP session as the client opened the first one: it keeps the
 * client's `initialize` (and whether the client sent `notifications/initialized`), replays them on
 * a session made after a restart, and catches the server's answer to the replay so that the client
 * never sees it. The client's own `initialized` is sent at most once per session.
 */
import {
  isInitializeRequest,
  isInitializedNotification,
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { deferred, withTimeout } from '../../common/async';
import type { Upstream } from './bridgeUpstream';

/** Bound on the server's answer to a replayed initialize. */
export const REINITIALIZE_TIMEOUT_MS = 10_000;

export class InitializeReplay {
  /** The client's initialize, replayed to every new session once the first one answered it. */
  private initializeRequest: JSONRPCRequest | undefined;
  private initializeAnswered = false;
  private clientInitialized = false;
  /** Generation of the session that got `notifications/initialized` last. */
  private initializedSentOn = 0;
  /** Answers to replayed initialize requests, by their id. */
  private readonly replayWaiters = new Map<RequestId, (message: JSONRPCMessage) => void>();

  constructor(private readonly timeoutMs = REINITIALIZE_TIMEOUT_MS) {}

  /** Notes the client's initialize and initialized as they pass to the server. */
  fromClient(message: JSONRPCMessage): void {
    if (isJSONRPCRequest(message) && isInitializeRequest(message)) this.initializeRequest = message;
    else if (isInitializedNotification(message)) this.clientInitialized = true;
  }

  /**
   * An answer (to request `id`) from `upstream`'s server: true when it answers a replay (and is not
   * for the client); an answer to the client's initialize sets the session's protocol version.
   */
  fromServer(id: RequestId, message: JSONRPCMessage, upstream: Upstream): boolean {
    const replayed = this.replayWaiters.get(id);
    if (replayed) {
      this.replayWaiters.delete(id);
      replayed(message);
      return true;
    }
    if (id === this.initializeRequest?.id && isJSONRPCResultResponse(message)) {
      this.initializeAnswered = true;
      const version = message.result.protocolVersion;
      if (typeof version === 'string') upstream.transport.setProtocolVersion(version);
    }
    return false;
  }

  /** True when a new session must be initialized before use: the first one was. */
  get needed(): boolean {
    return this.initializeRequest !== undefined && this.initializeAnswered;
  }

  /** True when the client's `initialized` already went to session `generation`. */
  initializedSentTo(generation: number): boolean {
    return this.initializedSentOn === generation;
  }

  markInitializedSent(generation: number): void {
    this.initializedSentOn = generation;
  }

  /** Opens `next` as the client opened the first session; throws when the server does not agree. */
  async replay(next: Upstream): Promise<void> {
    const original = this.initializeRequest;
    if (!original) return;
    const id = `luapanda-bridge-reinitialize-${next.generation}`;
    const answered = deferred<JSONRPCMessage>();
    this.replayWaiters.set(id, answered.resolve);
    try {
      await next.transport.send({ ...original, id });
      const answer = await withTimeout(answered.promise, this.timeoutMs);
      if (!answer) throw new Error('the new session did not answer initialize in time');
      if (isJSONRPCErrorResponse(answer)) {
        throw new Error(`the new session refused initialize: ${answer.error.message}`);
      }
      if (isJSONRPCResultResponse(answer)) {
        const version = answer.result.protocolVersion;
        if (typeof version === 'string') next.transport.setProtocolVersion(version);
      }
    } finally {
      this.replayWaiters.delete(id);
    }
    if (this.clientInitialized) {
      await next.transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      this.initializedSentOn = next.generation;
    }
  }
}
