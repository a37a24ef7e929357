/**
 * What the MCP tests share: a workspace folder written on the fly, headless luapanda-mcp serving
 * it over Streamable HTTP on a free port, SDK clients connected to it, and a tool call that checks
 * the text content mirrors the structured content.
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  HeadlessBackend,
  HeadlessBackendOptions,
  createHeadlessBackend,
} from '../../src/cli/headlessBackend';
import { HttpServerHandle, startHttpServer } from '../../src/mcp/transport/http';

export type ToolCallResult = Record<string, unknown> & { status: string; message?: string };

/** A temporary workspace with `files` and a `.vscode/launch.json` holding `configurations`. */
export async function makeWorkspace(
  files: Record<string, string>,
  configurations: object[],
): Promise<string> {
  const folder = await fs.mkdtemp(path.join(os.tmpdir(), 'luapanda-mcp-'));
  for (const [name, text] of Object.entries(files)) {
    await fs.writeFile(path.join(folder, name), text);
  }
  await fs.mkdir(path.join(folder, '.vscode'));
  await fs.writeFile(
    path.join(folder, '.vscode', 'launch.json'),
    `// written by the MCP tests\n${JSON.stringify({ version: '0.2.0', configurations }, null, 2)}\n`,
  );
  return folder;
}

export class HeadlessFixture {
  private readonly clients: Client[] = [];

  private constructor(
    readonly workspace: string,
    readonly backend: HeadlessBackend,
    readonly http: HttpServerHandle,
  ) {}

  /** `options`: the backend's besides the folder (an approver, tool settings). */
  static async start(
    workspace: string,
    options: Omit<HeadlessBackendOptions, 'workspaceFolder'> = {},
  ): Promise<HeadlessFixture> {
    const backend = createHeadlessBackend({ ...options, workspaceFolder: workspace });
    if (process.env.MCP_TEST_TRACE) {
      backend.channel.onEvent((_s, e) =>
        console.log('EVENT', e.event, JSON.stringify(e.body ?? {}).slice(0, 300)),
      );
    }
    const http = await startHttpServer({
      createServer: () => backend.createServer(),
      port: 0,
      workspace,
    });
    return new HeadlessFixture(workspace, backend, http);
  }

  /** A connected client that has listed the tools, so it validates results against their schemas. */
  async connect(): Promise<Client> {
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(this.http.url)));
    await client.listTools();
    this.clients.push(client);
    return client;
  }

  /** Closes the clients, ends the debug sessions, stops the server and removes the workspace. */
  async close(): Promise<void> {
    for (const client of this.clients.splice(0)) await client.close().catch(() => undefined);
    await this.backend.dispose();
    await this.http.close();
    await fs.rm(this.workspace, { recursive: true, force: true });
  }
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
  options: { signal?: AbortSignal; onprogress?: (p: { message?: string }) => void } = {},
): Promise<ToolCallResult> {
  const response = await client.callTool({ name, arguments: args }, undefined, {
    ...options,
    timeout: 50_000,
  });
  const result = response.structuredContent as ToolCallResult;
  assert.ok(result, `${name} returned no structured content`);
  const text = (response.content as { type: string; text: string }[])[0];
  assert.deepEqual(JSON.parse(text.text), result, 'text content mirrors the structured content');
  return result;
}

/** The stop data of a result that must be a stop (status "stopped"). */
export function stopDataOf<T>(result: ToolCallResult): T {
  assert.equal(result.status, 'stopped', `expected a stop: ${JSON.stringify(result)}`);
  return result.stop_event_data as T;
}

/**
 * For a describe block: `open(workspace)` starts a headless server on it and connects a client
 * (which `call` then uses); the server is closed after each test, after the hooks registered
 * before this one (register engines first, so a game is gone before its server).
 */
export function useHeadless(): {
  open(workspace: string): Promise<HeadlessFixture>;
  call(name: string, args?: Record<string, unknown>): Promise<ToolCallResult>;
} {
  let fixture: HeadlessFixture | undefined;
  let client: Client | undefined;
  afterEach(async () => {
    const closing = fixture;
    fixture = undefined;
    client = undefined;
    await closing?.close();
  });
  return {
    async open(workspace) {
      fixture = await HeadlessFixture.start(workspace);
      client = await fixture.connect();
      return fixture;
    },
    call(name, args = {}) {
      assert.ok(client, `${name}: no server open (call open(workspace) first)`);
      return callTool(client, name, args);
    },
  };
}
