/**
 * The Streamable HTTP transport against the SDK's real Client over loopback: sessions, the GET
 * stream, DELETE, concurrency, progress and cancellation, and the local-server protections (Host,
 * Origin, CORS, body size, OAuth probes, bearer token, port in use).
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import * as net from 'node:net';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import {
  fetchHealth,
  PortInUseError,
  startHttpServer,
  type HealthInfo,
} from '../../../src/mcp/transport/http';
import { createTestServer } from '../../fixtures/mcp/testServer';
import {
  closeAll,
  connectHttpClient,
  corsHeadersSeen,
  INITIALIZE_BODY,
  MCP_POST_HEADERS,
  rawRequest,
  sseMessages,
  startTestHttpServer,
  textOf,
  type ConnectedClient,
  type RawResponse,
  type TestHttpServer,
} from './helpers';

function assertNoWildcardCors(response: RawResponse): void {
  assert.notEqual(response.headers['access-control-allow-origin'], '*');
}

function jsonRpcError(response: RawResponse): { code: number; message: string } {
  assert.match(String(response.headers['content-type']), /application\/json/);
  const body = JSON.parse(response.body) as {
    jsonrpc: string;
    error: { code: number; message: string };
  };
  assert.equal(body.jsonrpc, '2.0');
  return body.error;
}

describe('mcp/transport/http', () => {
  let server: TestHttpServer;
  let clients: ConnectedClient[];

  beforeEach(async () => {
    server = await startTestHttpServer();
    clients = [];
  });

  afterEach(async () => {
    await closeAll(clients, server);
    // No response to the SDK client ever carried CORS headers (let alone a wildcard).
    assert.deepEqual(corsHeadersSeen.splice(0), []);
  });

  async function connect(options: { token?: string; url?: string } = {}): Promise<ConnectedClient> {
    const connected = await connectHttpClient(options.url ?? server.handle.url, options);
    clients.push(connected);
    return connected;
  }

  it('serves initialize, tools/list and tools/call on 127.0.0.1 (and [::1] when bound)', async () => {
    assert.equal(server.handle.url, `http://127.0.0.1:${server.handle.port}/mcp`);
    for (const url of server.handle.urls) {
      const { client, transport } = await connect({ url });
      assert.ok(transport.sessionId, 'the server gave a session id');
      assert.equal(client.getServerVersion()?.name, 'transport-test');
      const tools = await client.listTools();
      assert.deepEqual(tools.tools.map((tool) => tool.name).sort(), [
        'abort_count',
        'add',
        'client_roots',
        'echo',
        'progress',
        'release',
        'wait_for_cancel',
      ]);
      const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } });
      assert.equal(textOf(result), '42');
    }
    assert.equal(server.handle.sessionCount(), server.handle.urls.length);
  });

  it('opens the standalone GET stream and delivers server notifications on it', async () => {
    const { client, getStreamOpen } = await connect();
    let notified!: () => void;
    const listChanged = new Promise<void>((resolve) => (notified = resolve));
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => notified());
    await getStreamOpen;
    // A notification not tied to any request can only travel on the GET stream.
    server.servers[0].sendToolListChanged();
    await listChanged;
  });

  it('refuses a second GET stream on the same session (409) and GET without Accept (406)', async () => {
    const { transport, getStreamOpen } = await connect();
    await getStreamOpen;
    const headers = { 'Mcp-Session-Id': transport.sessionId ?? '' };
    const second = await rawRequest({
      port: server.handle.port,
      headers: { ...headers, Accept: 'text/event-stream' },
    });
    assert.equal(second.status, 409);
    const noAccept = await rawRequest({ port: server.handle.port, headers });
    assert.equal(noAccept.status, 406);
  });

  it('ends a session on DELETE: its server closes and the id is then unknown (404)', async () => {
    const { transport } = await connect();
    const sessionId = transport.sessionId ?? '';
    assert.equal(server.handle.sessionCount(), 1);
    let serverClosed!: () => void;
    const closed = new Promise<void>((resolve) => (serverClosed = resolve));
    server.servers[0].server.onclose = () => serverClosed();
    await transport.terminateSession();
    await closed;
    assert.equal(server.handle.sessionCount(), 0);
    const later = await rawRequest({
      port: server.handle.port,
      method: 'POST',
      headers: { ...MCP_POST_HEADERS, 'Mcp-Session-Id': sessionId },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(later.status, 404);
    assert.equal(jsonRpcError(later).code, -32001);
    const again = await rawRequest({
      port: server.handle.port,
      method: 'DELETE',
      headers: { 'Mcp-Session-Id': sessionId },
    });
    assert.equal(again.status, 404);
  });

  it('answers requests without a session: 400 unless they initialize', async () => {
    const response = await rawRequest({
      port: server.handle.port,
      method: 'POST',
      headers: MCP_POST_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(response.status, 400);
    assert.match(jsonRpcError(response).message, /initialize/);
    const badJson = await rawRequest({
      port: server.handle.port,
      method: 'POST',
      headers: MCP_POST_HEADERS,
      body: '{"jsonrpc":',
    });
    assert.equal(badJson.status, 400);
    assert.equal(jsonRpcError(badJson).code, -32700);
    assert.equal(server.handle.sessionCount(), 0);
  });

  it('serves 20 concurrent clients calling tools at once, each with its own session and results', async () => {
    const connected = await Promise.all(Array.from({ length: 20 }, () => connect()));
    const results = await Promise.all(
      connected.map(async ({ client }, i) => {
        const [echo, sum, progress] = await Promise.all([
          client.callTool({ name: 'echo', arguments: { text: `client ${i}` } }),
          client.callTool({ name: 'add', arguments: { a: i, b: 1000 * i } }),
          client.callTool({ name: 'progress', arguments: { steps: 3 } }),
        ]);
        return { echo, sum: textOf(sum), progress: textOf(progress) };
      }),
    );
    const sessionIds = new Set<string>();
    results.forEach(({ echo, sum, progress }, i) => {
      assert.equal(textOf(echo), `client ${i}`);
      assert.equal(sum, String(1001 * i));
      assert.equal(progress, 'done after 3 steps');
      const structured = echo.structuredContent as { session_id: string };
      assert.equal(structured.session_id, connected[i].transport.sessionId);
      sessionIds.add(structured.session_id);
    });
    assert.equal(sessionIds.size, 20);
    assert.equal(server.handle.sessionCount(), 20);
    assert.equal(server.servers.length, 20);
  });

  it('delivers progress notifications to the caller that gave a progress token', async () => {
    const { client } = await connect();
    const seen: Array<{ progress: number; total?: number; message?: string }> = [];
    let sawAll!: () => void;
    const allSeen = new Promise<void>((resolve) => (sawAll = resolve));
    // `hold`: the tool answers only after `release`, so that no step can race the response.
    const call = client.callTool(
      { name: 'progress', arguments: { steps: 5, hold: true } },
      undefined,
      {
        onprogress: (progress) => {
          seen.push(progress);
          if (seen.length === 5) sawAll();
        },
      },
    );
    await allSeen;
    assert.equal(textOf(await client.callTool({ name: 'release', arguments: {} })), '1');
    assert.equal(textOf(await call), 'done after 5 steps');
    assert.deepEqual(
      seen.map((p) => [p.progress, p.total, p.message]),
      [1, 2, 3, 4, 5].map((i) => [i, 5, `step ${i} of 5`]),
    );
  });

  it('passes a cancellation (AbortSignal on the client call) to the tool handler signal', async () => {
    const { client } = await connect();
    let handlerAborted!: () => void;
    const aborted = new Promise<void>((resolve) => (handlerAborted = resolve));
    server.probe.onAbort = () => handlerAborted();
    const controller = new AbortController();
    const call = client.callTool({ name: 'wait_for_cancel', arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: () => controller.abort('the test cancels'),
    });
    await assert.rejects(call, /the test cancels/);
    await aborted;
    assert.equal(server.probe.aborts, 1);
    // The session goes on.
    assert.equal(textOf(await client.callTool({ name: 'abort_count', arguments: {} })), '1');
  });

  it('ends the event stream of a cancelled request, which never gets a response', async () => {
    const port = server.handle.port;
    const init = await rawRequest({
      port,
      method: 'POST',
      headers: MCP_POST_HEADERS,
      body: INITIALIZE_BODY,
    });
    const sessionHeaders = {
      ...MCP_POST_HEADERS,
      'Mcp-Session-Id': String(init.headers['mcp-session-id']),
    };
    const post = (message: unknown): Promise<RawResponse> =>
      rawRequest({ port, method: 'POST', headers: sessionHeaders, body: JSON.stringify(message) });
    assert.equal((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);
    let waiting!: () => void;
    const started = new Promise<void>((resolve) => (waiting = resolve));
    server.probe.onWaiting = () => waiting();
    const call = post({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'wait_for_cancel', arguments: {} },
    });
    await started;
    const cancel = await post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 7, reason: 'raw test' },
    });
    assert.equal(cancel.status, 202);
    // Without the fix this response would stay open until the session ends (the test would hang).
    const ended = await call;
    assert.equal(ended.status, 200);
    assert.deepEqual(sseMessages(ended.body), []);
    assert.equal(server.probe.aborts, 1);
  });

  it('closes a session left idle by its client (no request, no open stream)', async () => {
    await server.handle.close();
    server = await startTestHttpServer({ sessionIdleTimeoutMs: 30 });
    const port = server.handle.port;
    const init = await rawRequest({
      port,
      method: 'POST',
      headers: MCP_POST_HEADERS,
      body: INITIALIZE_BODY,
    });
    assert.equal(init.status, 200);
    assert.equal(server.handle.sessionCount(), 1);
    while (server.handle.sessionCount() > 0)
      await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(server.servers[0].isConnected(), false);
    const later = await rawRequest({
      port,
      method: 'POST',
      headers: { ...MCP_POST_HEADERS, 'Mcp-Session-Id': String(init.headers['mcp-session-id']) },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
    });
    assert.equal(later.status, 404);
  });

  it('closes sessions, their servers and in-flight tool calls on close()', async () => {
    const { client } = await connect();
    let waiting!: () => void;
    const started = new Promise<void>((resolve) => (waiting = resolve));
    server.probe.onWaiting = () => waiting();
    const pending = client
      .callTool({ name: 'wait_for_cancel', arguments: {} })
      .catch(() => 'ended');
    await started;
    await server.handle.close();
    assert.equal(server.handle.sessionCount(), 0);
    assert.equal(server.probe.aborts, 1, 'the running handler was aborted');
    assert.equal(server.servers[0].isConnected(), false);
    await client.close();
    assert.equal(await pending, 'ended');
    await server.handle.close(); // idempotent
  });

  it('rejects a foreign Host header with 403 (DNS rebinding), on every path, and logs why', async () => {
    await server.handle.close();
    const logLines: string[] = [];
    server = await startTestHttpServer({ log: (line) => logLines.push(line) });
    const port = server.handle.port;
    for (const host of [
      'evil.example',
      `evil.example:${port}`,
      '127.0.0.1:1',
      `127.0.0.2:${port}`,
    ]) {
      for (const request of [
        { method: 'POST', path: '/mcp', headers: MCP_POST_HEADERS, body: INITIALIZE_BODY },
        { method: 'GET', path: '/health' },
      ]) {
        const response = await rawRequest({ port, host, ...request });
        assert.equal(response.status, 403, `${host} ${request.path}`);
        assert.match(jsonRpcError(response).message, /Host/);
        assertNoWildcardCors(response);
      }
    }
    assert.equal(server.handle.sessionCount(), 0);
    assert.ok(
      logLines.includes(
        'mcp http: refused GET /health with 403: Host "evil.example" is not a loopback name of this server',
      ),
      logLines.join('\n'),
    );
    assert.equal(logLines.filter((line) => line.includes('with 403')).length, 8);
    for (const host of [`localhost:${port}`, `LOCALHOST:${port}`, `[::1]:${port}`]) {
      const response = await rawRequest({ port, host, path: '/health' });
      assert.equal(response.status, 200, host);
    }
  });

  it('rejects a foreign Origin with 403 and accepts a local one, never with wildcard CORS', async () => {
    const port = server.handle.port;
    for (const origin of [
      'http://evil.example',
      'null',
      'file://',
      'http://localhost.evil.example',
    ]) {
      const response = await rawRequest({
        port,
        method: 'POST',
        headers: { ...MCP_POST_HEADERS, Origin: origin },
        body: INITIALIZE_BODY,
      });
      assert.equal(response.status, 403, origin);
      assert.match(jsonRpcError(response).message, /Origin/);
      assertNoWildcardCors(response);
    }
    for (const origin of ['http://localhost:5173', 'https://127.0.0.1', 'http://[::1]:8080']) {
      const response = await rawRequest({
        port,
        method: 'POST',
        headers: { ...MCP_POST_HEADERS, Origin: origin },
        body: INITIALIZE_BODY,
      });
      assert.equal(response.status, 200, origin);
      assertNoWildcardCors(response);
      const [message] = sseMessages(response.body) as Array<{ result?: { serverInfo?: unknown } }>;
      assert.ok(message.result?.serverInfo, 'an initialize result');
    }
    const preflight = await rawRequest({
      port,
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'POST' },
    });
    assert.equal(preflight.headers['access-control-allow-origin'], undefined);
  });

  it('answers a body over the limit with 413, declared or streamed, and logs why', async () => {
    await server.handle.close();
    const logLines: string[] = [];
    server = await startTestHttpServer({ log: (line) => logLines.push(line) });
    const port = server.handle.port;
    const oversized = Buffer.alloc(4 * 1024 * 1024 + 1, 0x20);
    const declared = await rawRequest({
      port,
      method: 'POST',
      headers: MCP_POST_HEADERS,
      body: oversized,
    });
    assert.equal(declared.status, 413);
    assert.match(jsonRpcError(declared).message, /Payload Too Large/);
    const streamed = await rawRequest({
      port,
      method: 'POST',
      headers: MCP_POST_HEADERS,
      body: oversized,
      chunked: true,
    });
    assert.equal(streamed.status, 413);
    assert.equal(server.handle.sessionCount(), 0);
    const refusals = logLines.filter((line) => line.includes('refused'));
    assert.equal(refusals.length, 2, logLines.join('\n'));
    assert.equal(
      refusals[0],
      'mcp http: refused POST /mcp with 413: request body (Content-Length 4194305) exceeds the limit of 4194304 bytes',
    );
    assert.match(
      refusals[1],
      /^mcp http: refused POST \/mcp with 413: request body \(\d+ bytes read so far\) exceeds the limit of 4194304 bytes$/,
    );
  });

  it('answers OAuth discovery probes (/.well-known/*) with a JSON 404', async () => {
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource/mcp',
    ]) {
      const response = await rawRequest({ port: server.handle.port, path });
      assert.equal(response.status, 404);
      assert.match(String(response.headers['content-type']), /application\/json/);
      assert.equal((JSON.parse(response.body) as { error: string }).error, 'not_found');
    }
  });

  it('identifies itself on GET /health', async () => {
    const response = await rawRequest({ port: server.handle.port, path: '/health' });
    assert.equal(response.status, 200);
    const health = JSON.parse(response.body) as HealthInfo;
    assert.equal(health.name, 'luapanda-mcp');
    assert.equal(health.pid, process.pid);
    assert.equal(health.port, server.handle.port);
    assert.equal(health.workspace, 'test-workspace');
    assert.equal(health.instanceId, server.handle.instanceId);
    assert.equal(health.startedAt, server.handle.startedAt);
    assert.match(health.version, /^\d+\.\d+\.\d+/);
    assert.match(health.startedAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('tells who serves a port with fetchHealth, and nothing when none of ours does', async () => {
    const info = await fetchHealth(server.handle.port);
    assert.deepEqual(info, server.handle.health());
    // Another program that answers /health with some other JSON.
    const other = http.createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', Connection: 'close' });
      res.end('{"name":"something-else"}');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const otherPort = (other.address() as net.AddressInfo).port;
    try {
      assert.equal(await fetchHealth(otherPort), undefined, 'another program');
    } finally {
      other.closeAllConnections();
      await new Promise<void>((resolve) => other.close(() => resolve()));
    }
    assert.equal(await fetchHealth(otherPort), undefined, 'nothing listening');
  });

  it('reports the session count as sessions open and close', async () => {
    await server.handle.close();
    const counts: number[] = [];
    server = await startTestHttpServer({ onSessionsChanged: (count) => counts.push(count) });
    const first = await connect();
    await connect();
    await first.transport.terminateSession();
    assert.deepEqual(counts, [1, 2, 1]);
    assert.equal(server.handle.health().sessions, 1);
  });

  it('requires the bearer token when one is set (401 otherwise), but not for /health', async () => {
    await server.handle.close();
    const logLines: string[] = [];
    server = await startTestHttpServer({
      token: 'right-token',
      log: (line) => logLines.push(line),
    });
    const port = server.handle.port;
    for (const authorization of [
      undefined,
      'Bearer wrong-token',
      'Bearer right-token-',
      'Basic x',
    ]) {
      const response = await rawRequest({
        port,
        method: 'POST',
        headers: {
          ...MCP_POST_HEADERS,
          ...(authorization ? { Authorization: authorization } : {}),
        },
        body: INITIALIZE_BODY,
      });
      assert.equal(response.status, 401, String(authorization));
      assert.match(jsonRpcError(response).message, /Bearer/);
    }
    // Every refusal is in the log with its reason, and no token (right or wrong) ever is.
    const refusals = logLines.filter((line) => line.includes('refused'));
    assert.deepEqual(refusals, [
      'mcp http: refused POST /mcp with 401: missing Authorization header (a bearer token is required)',
      'mcp http: refused POST /mcp with 401: wrong bearer token',
      'mcp http: refused POST /mcp with 401: wrong bearer token',
      'mcp http: refused POST /mcp with 401: the Authorization header is not "Bearer <token>"',
    ]);
    assert.ok(
      !logLines.some((line) => line.includes('right-token') || line.includes('wrong-token')),
    );
    // The SDK's StreamableHTTPError keeps the HTTP status in `code`, not in its message.
    await assert.rejects(connect({ token: 'wrong-token' }), (e: unknown) => {
      assert.equal((e as { code?: unknown }).code, 401);
      return true;
    });
    const { client } = await connect({ token: 'right-token' });
    assert.equal(textOf(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })), '3');
    const health = await rawRequest({ port, path: '/health' });
    assert.equal(health.status, 200);
  });

  it('fails with a clear error naming the port when the port is in use', async () => {
    const port = server.handle.port;
    const error = await startHttpServer({ port, createServer: () => createTestServer() }).then(
      () => assert.fail('a second server started on the same port'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof PortInUseError);
    assert.equal(error.port, port);
    assert.match(error.message, new RegExp(`Port ${port} .*already in use`));
    assert.match(error.message, /another port/);
    // The failed start left nothing listening: the first server still answers alone.
    const health = await rawRequest({ port, path: '/health' });
    assert.equal((JSON.parse(health.body) as HealthInfo).instanceId, server.handle.instanceId);
  });

  it('fails the same way when another program holds the port', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      await assert.rejects(
        startHttpServer({ port, createServer: () => createTestServer() }),
        (e: unknown) => e instanceof PortInUseError && e.message.includes(`Port ${port}`),
      );
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });
});
