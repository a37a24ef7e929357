/**
 * How the bridge reaches its server, on its own, with real listeners on 127.0.0.1: a probe that
 * already succeeded, a server that answers, one that is away (given up at once, or waited for
 * until it comes), and a bridge that ends while it would wait.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { reachServer, type ReachOptions } from '../../../src/mcp/transport/bridgeReach';

/** Listens on `port` (0: any); every request gets `status`. */
async function listen(port: number, status = 404): Promise<http.Server> {
  const server = http.createServer((_req, res) => res.writeHead(status).end());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return server;
}

function close(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** A port nothing listens on (one that was just free). */
async function freePort(): Promise<number> {
  const server = await listen(0);
  const { port } = server.address() as AddressInfo;
  await close(server);
  return port;
}

function options(port: number, overrides: Partial<ReachOptions> = {}): ReachOptions {
  return {
    endpoint: new URL(`http://127.0.0.1:${port}/mcp`),
    headers: {},
    probeTimeoutMs: 2000,
    waitSeconds: 0,
    hint: 'Is it running?',
    log: () => undefined,
    stopped: () => false,
    intervalMs: 20,
    ...overrides,
  };
}

describe('mcp/transport/bridgeReach', () => {
  it('takes a probe that already succeeded as it is', async () => {
    const port = await freePort();
    const health = { version: '1', pid: '2', workspace: 'w' };
    assert.deepEqual(await reachServer(options(port), { ok: true, health }), { ok: true, health });
  });

  it('reaches a server that answers anything', async () => {
    const server = await listen(0, 404);
    const { port } = server.address() as AddressInfo;
    try {
      assert.deepEqual(await reachServer(options(port)), { ok: true });
    } finally {
      await close(server);
    }
  });

  it('without a wait, gives up at once and says why', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const reached = await reachServer(options(port, { log: (line) => lines.push(line) }), {
      ok: false,
      cause: 'an older failure',
    });
    assert.equal(reached.ok, false);
    assert.match(
      reached.ok ? '' : reached.reason,
      /^Lost the LuaPanda MCP server at http:\/\/127\.0\.0\.1:\d+\/mcp: .*ECONNREFUSED/,
    );
    assert.deepEqual(lines, []);
  });

  it('waits, announced once, for a server that comes later', async () => {
    const port = await freePort();
    const lines: string[] = [];
    let late: Promise<http.Server> | undefined;
    const log = (line: string): void => {
      lines.push(line);
      late = listen(port); // the server comes once the wait has begun
    };
    const reached = await reachServer(options(port, { waitSeconds: 20, log }));
    try {
      assert.deepEqual(reached, { ok: true });
      assert.equal(lines.length, 1);
      assert.match(lines[0], /^waiting up to 20 s for the LuaPanda MCP server at .*ECONNREFUSED/);
    } finally {
      if (late) await close(await late);
    }
  });

  it('does not wait once the bridge has ended, and names the bound and the hint', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const reached = await reachServer(
      options(port, { waitSeconds: 20, stopped: () => true, log: (line) => lines.push(line) }),
    );
    assert.equal(reached.ok, false);
    assert.match(
      reached.ok ? '' : reached.reason,
      /^Gave up waiting for the LuaPanda MCP server at .* after 20 s: .*ECONNREFUSED.*\. Is it running\?$/,
    );
    assert.deepEqual(lines, []);
  });
});
