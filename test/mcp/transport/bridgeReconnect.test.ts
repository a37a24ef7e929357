/**
 * The real `luapanda-mcp --stdio --connect URL` CLI in a child process, driven by the SDK's
 * StdioClientTransport, against an HTTP server that is not up yet, restarts, or never comes: the
 * bridge waits for it (bounded), opens a new session after a restart without the client noticing,
 * and answers with an error naming the URL when the wait runs out.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type { PassThrough } from 'node:stream';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  ListRootsRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { INITIALIZE_BODY, startTestHttpServer, textOf, type TestHttpServer } from './helpers';

/** The compiled CLI, as `npm run compile` leaves it. */
const CLI = path.join(__dirname, '..', '..', '..', 'src', 'cli', 'mcp.js');

interface BridgeClient {
  client: Client;
  stderr: () => string;
}

function bridgeClient(url: string, extraArgs: string[] = []): { connect: Promise<BridgeClient> } {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, '--stdio', '--connect', url, ...extraArgs],
    stderr: 'pipe',
  });
  let stderr = '';
  (transport.stderr as PassThrough | null)?.on('data', (chunk: Buffer) => (stderr += chunk));
  const client = new Client(
    { name: 'bridge-reconnect-test', version: '1.0.0' },
    { capabilities: { roots: {} } },
  );
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: [{ uri: 'file:///game', name: 'game' }],
  }));
  const connect = client.connect(transport).then(() => ({ client, stderr: () => stderr }));
  // The test awaits it later; a failure must not count as unhandled meanwhile.
  connect.catch(() => undefined);
  return { connect };
}

/** A port nothing listens on now (it was just ours). */
async function freePort(): Promise<number> {
  const server = await startTestHttpServer();
  const port = server.handle.port;
  await server.handle.close();
  return port;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves when `ready()` is true, polling; rejects after `ms` (a bound, not a timing claim). */
async function until(
  what: string,
  ready: () => boolean | Promise<boolean>,
  ms = 15_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(50);
  }
}

describe('mcp/transport/bridge: waiting and reconnecting (the real CLI)', () => {
  let http: TestHttpServer | undefined;
  let bridge: BridgeClient | undefined;

  afterEach(async () => {
    await bridge?.client.close().catch(() => undefined);
    bridge = undefined;
    await http?.handle.close();
    http = undefined;
  });

  it('waits for a server that starts after it, holding initialize, then serves', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const { connect } = bridgeClient(url);
    await sleep(2000);
    http = await startTestHttpServer({ port });
    bridge = await connect;
    const tools = await bridge.client.listTools();
    assert.ok(tools.tools.some((tool) => tool.name === 'echo'));
    const echo = await bridge.client.callTool({ name: 'echo', arguments: { text: 'late' } });
    assert.equal(textOf(echo), 'late');
    assert.match(
      bridge.stderr(),
      new RegExp(`waiting up to 300 s for the LuaPanda MCP server at ${escape(url)}`),
    );
    assert.match(bridge.stderr(), new RegExp(`bridging stdio to ${escape(url)} \\(luapanda-mcp `));
  });

  it('opens a new session when the server restarts on its port; requests and notifications resume', async () => {
    http = await startTestHttpServer();
    const port = http.handle.port;
    const url = http.handle.url;
    bridge = await bridgeClient(url).connect;
    const client = bridge.client;
    assert.equal(
      textOf(await client.callTool({ name: 'echo', arguments: { text: 'one' } })),
      'one',
    );

    await http.handle.close();
    http = undefined;
    const restarted = await startTestHttpServer({ port });
    http = restarted;

    // The first call after the restart works: the bridge re-initialized (or does so now, after
    // the 404 of the old session id, and sends the call once more).
    const again = await client.callTool({ name: 'echo', arguments: { text: 'two' } });
    assert.equal(textOf(again), 'two');
    assert.equal(restarted.handle.sessionCount(), 1);
    assert.equal(restarted.servers.length, 1);
    // The replayed initialize carried the client's own identity.
    const seenClient = restarted.servers[0].server.getClientVersion();
    assert.equal(seenClient?.name, 'bridge-reconnect-test');
    // Requests from the server reach the client again (and their answers come back).
    const roots = await client.callTool({ name: 'client_roots', arguments: {} });
    assert.equal(textOf(roots), 'file:///game');
    // The standalone GET stream is open again: a notification of the server arrives.
    let listChanged = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      listChanged++;
    });
    await until('a tools/list_changed notification over the new session', () => {
      restarted.servers[0].sendToolListChanged();
      return listChanged > 0;
    });
    assert.match(bridge.stderr(), /Lost the LuaPanda MCP server session at/);
    assert.match(bridge.stderr(), new RegExp(`reconnected to ${escape(url)}`));
  });

  it('with --wait-seconds 1 and no server, answers initialize with an error naming the URL and exits 1', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/mcp`;
    const child = spawn(
      process.execPath,
      [CLI, '--stdio', '--connect', url, '--wait-seconds', '1'],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      child.stdin.write(`${INITIALIZE_BODY}\n`);
      const code = await exited;
      assert.equal(code, 1);
      const answer = JSON.parse(stdout.trim().split('\n')[0]) as {
        id: number;
        error?: { message: string };
      };
      assert.equal(answer.id, 1);
      assert.match(answer.error?.message ?? '', new RegExp(`at ${escape(url)}`));
      assert.match(answer.error?.message ?? '', /Gave up waiting .* after 1 s: .*ECONNREFUSED/);
      assert.match(
        stderr,
        new RegExp(`waiting up to 1 s for the LuaPanda MCP server at ${escape(url)}`),
      );
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill();
    }
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
