/**
 * The bridge's book of requests in flight: the stdio client's requests that still wait for their
 * answer (and on which HTTP session each was sent), and the server's requests to the client (by the
 * session that sent them). It decides which requests a lost session takes with it and which
 * answers from the client are too late to forward; it sends nothing itself.
 */
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The bridge's own error answer to request `id` (the server's answer cannot come). */
export function errorAnswer(id: RequestId, message: string): JSONRPCMessage {
  return { jsonrpc: '2.0', id, error: { code: -32000, message } };
}

/** A client request whose answer is lost with its session. */
export interface LostRequest {
  id: RequestId;
  method: string;
}

interface PendingRequest {
  method: string;
  /** Generation of the session that took the request; unset while it waits to be sent. */
  sentOn?: number;
}

export class BridgeRequests {
  /** Requests from the stdio client that still wait for their response. */
  private readonly pending = new Map<RequestId, PendingRequest>();
  /** Requests from the server to the client, by the session that sent them. */
  private readonly serverRequests = new Map<RequestId, number>();

  /** The client sent a request; it waits to be forwarded. */
  clientRequest(id: RequestId, method: string): void {
    this.pending.set(id, { method });
  }

  /** The request was taken by session `generation` (if it still waits). */
  sent(id: RequestId, generation: number): void {
    const request = this.pending.get(id);
    if (request) request.sentOn = generation;
  }

  /** The request was answered or cancelled; true when it was still waiting. */
  settle(id: RequestId): boolean {
    return this.pending.delete(id);
  }

  /** Forgets and returns the requests that session `generation` took: their answers are lost. */
  takeLostOn(generation: number): LostRequest[] {
    const lost: LostRequest[] = [];
    for (const [id, request] of this.pending) {
      if (request.sentOn !== generation) continue;
      this.pending.delete(id);
      lost.push({ id, method: request.method });
    }
    return lost;
  }

  /** The ids of every request still waiting, in the order they came. */
  waiting(): RequestId[] {
    return [...this.pending.keys()];
  }

  clear(): void {
    this.pending.clear();
  }

  /** Session `generation` sent the client a request. */
  serverRequest(id: RequestId, generation: number): void {
    this.serverRequests.set(id, generation);
  }

  /**
   * The client answered a server request: true when the answer should be forwarded, false when
   * the session that asked is gone (`current` is the session in use).
   */
  clientAnswer(id: RequestId, current: number): boolean {
    const from = this.serverRequests.get(id);
    this.serverRequests.delete(id);
    return from === undefined || from === current;
  }
}
