/**
 * The stdio bridge's relaying (stdioBridge.ts), both ways, unchanged. From the client: one message
 * at a time, in order, on the session in use (bridgeSessions.ts); a POST returns as soon as the
 * server has taken the message (its answer streams afterwards), so order costs no waiting on slow
 * tools. While the server is away, messages wait (the client's initialize among them) until it is
 * back or the bound passes; a message whose session was lost while it was sent is sent once more
 * on the next one, and a request that cannot be forwarded is answered with the reason. From the
 * server: answers settle the client's requests, and the answer to a replayed initialize stays here.
 */
import {
  isInitializedNotification,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { causeText } from './bridgeProbe';
import type { InitializeReplay } from './bridgeInitialize';
import { errorAnswer, type BridgeRequests } from './bridgeRequests';
import type { BridgeSessions } from './bridgeSessions';
import type { BridgeResult } from './bridgeShutdown';
import type { Upstream } from './bridgeUpstream';

export interface ForwardParts {
  href: string;
  log: (line: string) => void;
  requests: BridgeRequests;
  initialize: InitializeReplay;
  /** A message for the client (dropped once the bridge has ended). */
  toClient: (message: JSONRPCMessage) => Promise<void>;
  /** How the bridge ended, or undefined while it runs. */
  finished: () => BridgeResult | undefined;
}

/** The handler of the server's messages: bookkeeping, then on to the client. */
export function serverToClient(
  parts: ForwardParts,
): (message: JSONRPCMessage, from: Upstream) => void {
  const { requests, initialize, toClient } = parts;
  return (message, from) => {
    if (
      (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) &&
      message.id !== undefined
    ) {
      if (initialize.fromServer(message.id, message, from)) return; // the answer to a replay
      requests.settle(message.id);
    } else if (isJSONRPCRequest(message)) {
      requests.serverRequest(message.id, from.generation);
    }
    void toClient(message);
  };
}

export class ClientToServer {
  private queue = Promise.resolve();

  constructor(
    private readonly parts: ForwardParts,
    private readonly sessions: BridgeSessions,
  ) {}

  /** A message from the client: noted, then queued for the server. */
  fromClient(message: JSONRPCMessage): void {
    const { requests, initialize, finished } = this.parts;
    if (finished()) return;
    if (isJSONRPCRequest(message)) {
      requests.clientRequest(message.id, message.method);
    } else if (isJSONRPCNotification(message)) {
      if (message.method === 'notifications/cancelled') {
        const cancelled = (message.params as { requestId?: RequestId } | undefined)?.requestId;
        if (cancelled !== undefined) requests.settle(cancelled);
      }
    } else if (
      (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) &&
      message.id !== undefined
    ) {
      if (!requests.clientAnswer(message.id, this.sessions.generation)) return; // its session is gone
    }
    initialize.fromClient(message);
    this.queue = this.queue.then(() => this.forward(message));
  }

  private async forward(message: JSONRPCMessage): Promise<void> {
    const { requests, initialize, finished, log } = this.parts;
    // A message that failed because its session was lost is sent once more on the new session:
    // the server never took it.
    for (let attempt = 0; ; attempt++) {
      if (finished()) return;
      let session: Upstream;
      try {
        session = await this.sessions.ensure();
      } catch (error) {
        return this.refuse(message, error);
      }
      if (isInitializedNotification(message) && initialize.initializedSentTo(session.generation)) {
        return;
      }
      try {
        await session.transport.send(message);
        if (isJSONRPCRequest(message)) {
          requests.sent(message.id, session.generation);
        } else if (isInitializedNotification(message)) {
          initialize.markInitializedSent(session.generation);
        }
        return;
      } catch (error) {
        if (finished()) return;
        if (attempt === 0 && this.sessions.inUse !== session.generation) {
          log(`sending ${describe(message)} again on a new session`);
          continue;
        }
        return this.refuse(message, error);
      }
    }
  }

  private async refuse(message: JSONRPCMessage, error: unknown): Promise<void> {
    const { requests, href, finished, log, toClient } = this.parts;
    if (finished()) return;
    if (isJSONRPCRequest(message) && requests.settle(message.id)) {
      await toClient(
        errorAnswer(
          message.id,
          `The LuaPanda MCP server at ${href} could not take ${message.method}: ${causeText(error)}`,
        ),
      );
    } else {
      log(`could not forward ${describe(message)} to ${href}: ${causeText(error)}`);
    }
  }
}

function describe(message: JSONRPCMessage): string {
  if (isJSONRPCRequest(message)) return `request ${message.method} (id ${String(message.id)})`;
  if (isJSONRPCNotification(message)) return `notification ${message.method}`;
  return 'an answer';
}
