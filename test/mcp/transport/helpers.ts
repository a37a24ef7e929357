/**
 * Helpers of the MCP transport tests: start our HTTP server with the test McpServer, connect the
 * SDK's real Client to it, and send raw HTTP requests (for what an SDK client never sends: a hostile
 * Host or Origin, an oversized body).
 */
import * as http from 'node:http';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import {
  startHttpServer,
  type HttpServerHandle,
  type HttpServerOptions,
} from '../../../src/mcp/transport/http';
import { createTestServer, type TestProbe } from '../../fixtures/mcp/testServer';

/** The compiled child-process entries of test/fixtures/mcp. */
export const FIXTURES = path.join(__dirname, '..', '..', 'fixtures', 'mcp');

export interface TestHttpServer {
  handle: HttpServerHandle;
  probe: TestProbe;
  /** Every McpServer the factory made, in order (one per session). */
  servers: McpServer[];
}

export async function startTestHttpServer(
  options: Partial<HttpServerOptions> = {},
): Promise<TestHttpServer> {
  const probe: TestProbe = { aborts: 0 };
  const servers: McpServer[] = [];
  const handle = await startHttpServer({
    port: 0,
    workspace: 'test-workspace',
    ...options,
    createServer: () => {
      const server = createTestServer(probe);
      servers.push(server);
      return server;
    },
  });
  return { handle, probe, servers };
}

/** Every Access-Control-Allow-Origin header a test client received (there should be none). */
export const corsHeadersSeen: string[] = [];

export interface ConnectedClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Resolves when the client's standalone GET event stream has been answered 200. */
  getStreamOpen: Promise<void>;
}

export async function connectHttpClient(
  url: string,
  options: { token?: string; name?: string } = {},
): Promise<ConnectedClient> {
  let markOpen!: () => void;
  const getStreamOpen = new Promise<void>((resolve) => (markOpen = resolve));
  // The SDK's own `fetch` option, only to observe when the GET stream is up.
  const observingFetch: FetchLike = async (input, init) => {
    const response = await fetch(input, init);
    const allowOrigin = response.headers.get('access-control-allow-origin');
    if (allowOrigin !== null) corsHeadersSeen.push(`${init?.method ?? 'GET'} → ${allowOrigin}`);
    if ((init?.method ?? 'GET') === 'GET' && response.status === 200) markOpen();
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: observingFetch,
    requestInit: options.token ? { headers: { Authorization: `Bearer ${options.token}` } } : {},
  });
  const client = new Client({ name: options.name ?? 'transport-test-client', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, getStreamOpen };
}

/** The text of the first content item of a tool result. */
export function textOf(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content;
  const first = content?.[0];
  if (!first || first.type !== 'text' || first.text === undefined) {
    throw new Error(`expected a text result, got ${JSON.stringify(result)}`);
  }
  return first.text;
}

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface RawRequest {
  port: number;
  method?: string;
  path?: string;
  host?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send the body with chunked transfer encoding (no Content-Length). */
  chunked?: boolean;
}

/** One HTTP request on a fresh connection (no keep-alive pool left behind). */
export function rawRequest(request: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {
      Host: request.host ?? `127.0.0.1:${request.port}`,
      ...request.headers,
    };
    if (request.body !== undefined && !request.chunked) {
      headers['Content-Length'] = String(Buffer.byteLength(request.body));
    }
    let settled = false;
    const req = http.request(
      {
        host: '127.0.0.1',
        port: request.port,
        method: request.method ?? 'GET',
        path: request.path ?? '/mcp',
        headers,
        agent: false,
        setHost: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          settled = true;
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', (error) => {
          if (!settled) reject(error);
        });
      },
    );
    // A server may answer (413) and close before a large body is fully written: the answer counts.
    req.on('error', (error) => {
      if (!settled) setImmediate(() => (settled ? undefined : reject(error)));
    });
    if (request.body !== undefined && request.chunked) {
      const body = Buffer.from(request.body);
      const step = 64 * 1024;
      for (let i = 0; i < body.length; i += step) req.write(body.subarray(i, i + step));
      req.end();
    } else {
      req.end(request.body);
    }
  });
}

/** The JSON-RPC messages in an SSE body (`data:` lines). */
export function sseMessages(body: string): unknown[] {
  return body
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line.length > 6)
    .map((line) => JSON.parse(line.slice(6)) as unknown);
}

export const MCP_POST_HEADERS = {
  'Content-Type': 'application/json',
  Accept: 'application/json, text/event-stream',
};

export const INITIALIZE_BODY = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'raw-test', version: '1.0.0' },
  },
});

/** Closes every client, then the server, whatever failed. */
export async function closeAll(
  clients: Array<{ client: Client }>,
  server?: { handle: HttpServerHandle },
): Promise<void> {
  await Promise.allSettled(clients.map(({ client }) => client.close()));
  await server?.handle.close();
}
