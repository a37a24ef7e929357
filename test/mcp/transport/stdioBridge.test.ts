/**
 * The stdio → HTTP bridge in real child processes, relaying to our HTTP server in this process:
 * tools, server-to-client requests, progress, cancellation and the token pass through; the session
 * ends with the client (or soon after a killed one); failures are clear on stderr and in answers.
 * (Waiting for a server and surviving its restart: bridgeReconnect.test.ts.)
 */
import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import {
  FIXTURES,
  INITIALIZE_BODY,
  startTestHttpServer,
  textOf,
  type TestHttpServer,
} from './helpers';
import { connectStdio, progressAndCancel, waitFor, type StdioClient } from './stdioClient';

const BRIDGE = path.join(FIXTURES, 'bridgeMain.js');
/** The shipped command line (`luapanda-mcp`), as the copied client configurations run it. */
const CLI = path.join(__dirname, '..', '..', '..', 'src', 'cli', 'mcp.js');

interface Exited {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A bridge child process driven by hand, to see its exit code and both of its streams. */
function spawnBridge(args: string[]): { child: ChildProcess; exited: Promise<Exited> } {
  const child = spawn(process.execPath, [BRIDGE, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk));
  const exited = new Promise<Exited>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, exited };
}

/** Lines of JSON from a child's stdout, as they come. */
function jsonLines(child: ChildProcess): AsyncIterator<Record<string, unknown>> {
  const queue: Array<Record<string, unknown>> = [];
  const waiters: Array<(value: IteratorResult<Record<string, unknown>>) => void> = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let newline: number;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = JSON.parse(buffer.slice(0, newline)) as Record<string, unknown>;
      buffer = buffer.slice(newline + 1);
      const waiter = waiters.shift();
      if (waiter) waiter({ value: line, done: false });
      else queue.push(line);
    }
  });
  return {
    next: () =>
      new Promise((resolve) => {
        const line = queue.shift();
        if (line) resolve({ value: line, done: false });
        else waiters.push(resolve);
      }),
  };
}

describe('mcp/transport/stdioBridge: bridgeStdioToHttp in a child process', () => {
  let http: TestHttpServer | undefined;
  let stdio: StdioClient | undefined;
  const children: ChildProcess[] = [];

  afterEach(async () => {
    await stdio?.client.close();
    stdio = undefined;
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        const closed = new Promise((resolve) => child.once('close', resolve));
        child.kill();
        await closed;
      }
    }
    await http?.handle.close();
    http = undefined;
  });

  it('relays tools/list and tools/call to the HTTP server, one session per bridge', async () => {
    http = await startTestHttpServer();
    stdio = await connectStdio([BRIDGE, http.handle.url]);
    assert.equal(stdio.client.getServerVersion()?.name, 'transport-test');
    const tools = await stdio.client.listTools();
    assert.equal(tools.tools.length, 7);
    const echo = await stdio.client.callTool({ name: 'echo', arguments: { text: 'bridged' } });
    assert.equal(textOf(echo), 'bridged');
    assert.equal(http.handle.sessionCount(), 1);
    assert.match(stdio.stderr(), /bridging stdio to .* \(luapanda-mcp /);
  });

  it('relays requests from the server to the client and their answers back', async () => {
    http = await startTestHttpServer();
    stdio = await connectStdio([BRIDGE, http.handle.url]);
    const roots = await stdio.client.callTool({ name: 'client_roots', arguments: {} });
    assert.equal(textOf(roots), 'file:///game');
  });

  it('passes progress notifications and cancellation through unchanged', async () => {
    http = await startTestHttpServer();
    const probe = http.probe;
    let aborted!: () => void;
    const handlerAborted = new Promise<void>((resolve) => (aborted = resolve));
    probe.onAbort = () => aborted();
    stdio = await connectStdio([BRIDGE, http.handle.url]);
    await progressAndCancel(stdio.client, () => handlerAborted);
    assert.equal(probe.aborts, 1);
  });

  it('ends its HTTP session when the client closes stdin', async () => {
    http = await startTestHttpServer();
    const server = http;
    stdio = await connectStdio([BRIDGE, server.handle.url]);
    assert.equal(server.handle.sessionCount(), 1);
    let serverClosed!: () => void;
    const closed = new Promise<void>((resolve) => (serverClosed = resolve));
    server.servers[0].server.onclose = () => serverClosed();
    await stdio.client.close();
    stdio = undefined;
    await closed; // the bridge sent DELETE before exiting
    assert.equal(server.handle.sessionCount(), 0);
  });

  it('a bridge killed with SIGKILL: its session stops counting within seconds', async () => {
    // The default streamGoneMs, as the extension's status bar counts sessions with it.
    http = await startTestHttpServer();
    const server = http;
    stdio = await connectStdio([CLI, '--stdio', '--connect', server.handle.url]);
    const echo = await stdio.client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    assert.equal(textOf(echo), 'hi');
    assert.equal(server.handle.sessionCount(), 1);
    await waitFor(() => server.handle.listeningCount() === 1, 5000, 'the event stream');
    const pid = stdio.transport.pid;
    assert.ok(pid !== null && pid !== undefined);
    const exited = new Promise((resolve) =>
      (stdio?.transport as unknown as { _process?: ChildProcess })._process?.once('exit', resolve),
    );
    process.kill(pid, 'SIGKILL');
    await exited; // no DELETE: the process is gone before it could send one
    // How long the grace for a reconnect lasts is the next test's matter (no clock here).
    await waitFor(
      () => server.handle.sessionCount() === 0,
      15_000,
      'the killed client session to close',
    );
    stdio = undefined;
  });

  it('a live client keeps its session while it holds its event stream', async () => {
    http = await startTestHttpServer({ streamGoneMs: 100, sessionIdleTimeoutMs: 100 });
    const server = http;
    stdio = await connectStdio([CLI, '--stdio', '--connect', server.handle.url]);
    await waitFor(() => server.handle.listeningCount() === 1, 5000, 'the event stream');
    await new Promise((resolve) => setTimeout(resolve, 400));
    assert.equal(server.handle.sessionCount(), 1, 'idle, listening, and still counted');
    const echo = await stdio.client.callTool({ name: 'echo', arguments: { text: 'still' } });
    assert.equal(textOf(echo), 'still');
  });

  it('sends the bearer token when given one', async () => {
    http = await startTestHttpServer({ token: 's3cret' });
    stdio = await connectStdio([BRIDGE, http.handle.url, 's3cret']);
    const sum = await stdio.client.callTool({ name: 'add', arguments: { a: 20, b: 22 } });
    assert.equal(textOf(sum), '42');
  });

  it('answers with the reason and exits 1 when the token is refused', async () => {
    http = await startTestHttpServer({ token: 's3cret' });
    const { child, exited } = spawnBridge([http.handle.url, 'wrong']);
    children.push(child);
    const lines = jsonLines(child);
    child.stdin?.write(`${INITIALIZE_BODY}\n`);
    const answer = (await lines.next()).value as { id: number; error?: { message: string } };
    assert.equal(answer.id, 1);
    assert.match(answer.error?.message ?? '', /refused the token \(401\)/);
    const { code, stderr } = await exited;
    assert.equal(code, 1);
    assert.match(stderr, /refused the token/);
  });

  it('exits 1 with a clear message on stderr, and nothing on stdout, when no server answers', async () => {
    http = await startTestHttpServer();
    const url = http.handle.url;
    await http.handle.close(); // now nothing listens on that port
    http = undefined;
    const { child, exited } = spawnBridge([url]);
    children.push(child);
    const { code, stdout, stderr } = await exited;
    assert.equal(code, 1);
    assert.equal(stdout, '');
    assert.match(stderr, /Cannot reach the LuaPanda MCP server at http:\/\/127\.0\.0\.1:\d+\/mcp/);
    assert.match(stderr, /ECONNREFUSED/);
  });

  it('exits 1, answering what was pending, when the HTTP server goes away', async () => {
    http = await startTestHttpServer();
    const server = http;
    let waiting!: () => void;
    const started = new Promise<void>((resolve) => (waiting = resolve));
    server.probe.onWaiting = () => waiting();
    const { child, exited } = spawnBridge([server.handle.url]);
    children.push(child);
    const lines = jsonLines(child);
    const send = (message: unknown): void =>
      void child.stdin?.write(`${JSON.stringify(message)}\n`);
    send(JSON.parse(INITIALIZE_BODY));
    assert.ok(((await lines.next()).value as { result?: unknown }).result);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'wait_for_cancel', arguments: {} },
    });
    await started;
    await server.handle.close();
    const answer = (await lines.next()).value as { id: number; error?: { message: string } };
    assert.equal(answer.id, 2);
    assert.match(answer.error?.message ?? '', /LuaPanda MCP server/);
    const { code, stderr } = await exited;
    assert.equal(code, 1);
    assert.match(stderr, /Lost the LuaPanda MCP server|no longer knows this session/);
  });
});
