/**
 * One HTTP session of the bridge on its own, against a plain HTTP server on 127.0.0.1 that answers
 * as told: what the watched fetch reports as a lost server (refused connection, 404 for our
 * session) and as a refusal (401, 403), and what it lets pass.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createUpstream, type UpstreamWatch } from '../../../src/mcp/transport/bridgeUpstream';

interface Reports {
  lost: string[];
  refused: string[];
  errors: string[];
}

function watcher(): { watch: UpstreamWatch; reports: Reports } {
  const reports: Reports = { lost: [], refused: [], errors: [] };
  return {
    reports,
    watch: {
      lost: (cause) => reports.lost.push(cause),
      refused: (reason) => reports.refused.push(reason),
      error: (message) => reports.errors.push(message),
    },
  };
}

const initialize: JSONRPCMessage = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 't', version: '1' },
  },
};
const ping: JSONRPCMessage = { jsonrpc: '2.0', id: 2, method: 'ping' };

/** A server whose every POST gets `status`; an initialize gets a session id and a result. */
async function serve(status: () => number): Promise<{ url: URL; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const code = status();
      if (code !== 200) {
        res.writeHead(code).end();
        return;
      }
      const message = JSON.parse(body) as { id?: number };
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'session-1' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: message.id, result: {} }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: new URL(`http://127.0.0.1:${port}/mcp`),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe('mcp/transport/bridgeUpstream', () => {
  it('reports a 404 for its session as lost, and passes a 200', async () => {
    let status = 200;
    const server = await serve(() => status);
    const { watch, reports } = watcher();
    const upstream = createUpstream(server.url, {}, 4, watch);
    try {
      assert.equal(upstream.generation, 4);
      await upstream.transport.start();
      await upstream.transport.send(initialize);
      assert.equal(upstream.transport.sessionId, 'session-1');
      assert.deepEqual(reports.lost, []);
      status = 404;
      await assert.rejects(upstream.transport.send(ping));
      assert.equal(reports.lost.length, 1);
      assert.match(reports.lost[0], /no longer knows this session \(404\)/);
      assert.deepEqual(reports.refused, []);
    } finally {
      await upstream.transport.close();
      await server.close();
    }
  });

  it('a 404 before any session is not a lost session', async () => {
    const server = await serve(() => 404);
    const { watch, reports } = watcher();
    const upstream = createUpstream(server.url, {}, 1, watch);
    try {
      await upstream.transport.start();
      await assert.rejects(upstream.transport.send(initialize));
      assert.deepEqual(reports.lost, []);
    } finally {
      await upstream.transport.close();
      await server.close();
    }
  });

  it('reports 401 and 403 as refusals, naming the server', async () => {
    for (const [code, text] of [
      [401, /refused the token \(401\)/],
      [403, /refused the request \(403\)/],
    ] as const) {
      const server = await serve(() => code);
      const { watch, reports } = watcher();
      const upstream = createUpstream(server.url, { Authorization: 'Bearer x' }, 1, watch);
      try {
        await upstream.transport.start();
        await assert.rejects(upstream.transport.send(initialize));
        assert.equal(reports.refused.length, 1, String(code));
        assert.match(reports.refused[0], text);
        assert.ok(reports.refused[0].includes(server.url.href));
        assert.deepEqual(reports.lost, []);
      } finally {
        await upstream.transport.close();
        await server.close();
      }
    }
  });

  it('reports a refused connection as lost, with the cause', async () => {
    const server = await serve(() => 200);
    const url = server.url;
    await server.close(); // nothing listens on the port any more
    const { watch, reports } = watcher();
    const upstream = createUpstream(url, {}, 1, watch);
    try {
      await upstream.transport.start();
      await assert.rejects(upstream.transport.send(initialize));
      assert.equal(reports.lost.length, 1);
      assert.match(reports.lost[0], /ECONNREFUSED/);
    } finally {
      await upstream.transport.close();
    }
  });
});
