/**
 * The bridge's initialize replay on its own, against a plain HTTP server on 127.0.0.1 that records
 * what it is sent: when a new session needs the replay, what it sends (the client's initialize
 * under a bridge id, then `initialized` if the client sent it), that the server's answer to the
 * replay stays with the bridge, and how a refused or unanswered replay fails.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage, JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import { InitializeReplay } from '../../../src/mcp/transport/bridgeInitialize';
import { createUpstream, type Upstream } from '../../../src/mcp/transport/bridgeUpstream';

const clientInitialize: JSONRPCRequest = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'agent', version: '1' },
  },
};
const initialized: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/initialized' };

type Reply = 'result' | 'error' | 'silence';

/** A server that records every message; requests get a result, an error or nothing (202). */
async function serve(reply: Reply): Promise<{
  url: URL;
  received: JSONRPCMessage[];
  close(): Promise<void>;
}> {
  const received: JSONRPCMessage[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      if (req.method !== 'POST') {
        // The client opens its GET event stream after `initialized`: none offered here.
        res.writeHead(405).end();
        return;
      }
      const message = JSON.parse(body) as JSONRPCMessage;
      received.push(message);
      if (!('id' in message) || reply === 'silence') {
        res.writeHead(202).end();
        return;
      }
      const answer =
        reply === 'result'
          ? { jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2025-06-18' } }
          : { jsonrpc: '2.0', id: message.id, error: { code: -32600, message: 'boom' } };
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A session whose answers go through `replay`, as the bridge routes them; the rest is kept. */
async function session(
  url: URL,
  generation: number,
  replay: InitializeReplay,
): Promise<{ upstream: Upstream; forClient: JSONRPCMessage[] }> {
  const ignore = (): void => undefined;
  const upstream = createUpstream(url, {}, generation, {
    lost: ignore,
    refused: ignore,
    error: ignore,
  });
  const forClient: JSONRPCMessage[] = [];
  upstream.transport.onmessage = (message) => {
    if ('id' in message && message.id !== undefined && !('method' in message)) {
      if (replay.fromServer(message.id, message, upstream)) return;
    }
    forClient.push(message);
  };
  await upstream.transport.start();
  return { upstream, forClient };
}

describe('mcp/transport/bridgeInitialize', () => {
  it('replays initialize and initialized on a new session, keeping the answer', async () => {
    const server = await serve('result');
    const replay = new InitializeReplay();
    const first = await session(server.url, 1, replay);
    const second = await session(server.url, 2, replay);
    try {
      replay.fromClient(clientInitialize);
      assert.equal(replay.needed, false, 'not before the first session answered');
      await first.upstream.transport.send(clientInitialize);
      assert.equal(first.forClient.length, 1, "the client's own answer reaches the client");
      assert.equal(replay.needed, true);
      replay.fromClient(initialized);
      await first.upstream.transport.send(initialized);
      replay.markInitializedSent(1);
      assert.equal(replay.initializedSentTo(1), true);

      server.received.length = 0;
      await replay.replay(second.upstream);
      assert.deepEqual(server.received, [
        { ...clientInitialize, id: 'luapanda-bridge-reinitialize-2' },
        initialized,
      ]);
      assert.deepEqual(second.forClient, [], 'the answer to the replay stays with the bridge');
      assert.equal(replay.initializedSentTo(2), true);
      assert.equal(replay.initializedSentTo(1), false);
    } finally {
      await first.upstream.transport.close();
      await second.upstream.transport.close();
      await server.close();
    }
  });

  it('does not send initialized the client never sent', async () => {
    const server = await serve('result');
    const replay = new InitializeReplay();
    const next = await session(server.url, 2, replay);
    try {
      replay.fromClient(clientInitialize);
      await replay.replay(next.upstream);
      assert.deepEqual(
        server.received.map((m) => ('method' in m ? m.method : '')),
        ['initialize'],
      );
      assert.equal(replay.initializedSentTo(2), false);
    } finally {
      await next.upstream.transport.close();
      await server.close();
    }
  });

  it('fails when the new session refuses initialize', async () => {
    const server = await serve('error');
    const replay = new InitializeReplay();
    const next = await session(server.url, 3, replay);
    try {
      replay.fromClient(clientInitialize);
      await assert.rejects(replay.replay(next.upstream), /refused initialize: boom/);
    } finally {
      await next.upstream.transport.close();
      await server.close();
    }
  });

  it('fails when the new session never answers, within its bound', async () => {
    const server = await serve('silence');
    const replay = new InitializeReplay(50);
    const next = await session(server.url, 3, replay);
    try {
      replay.fromClient(clientInitialize);
      await assert.rejects(replay.replay(next.upstream), /did not answer initialize in time/);
    } finally {
      await next.upstream.transport.close();
      await server.close();
    }
  });
});
