/**
 * The MCP session table on its own, with the SDK's real server transports (never started: closing
 * one is what the table does to a session): which sessions it closes — a client that lost its event
 * stream, an idle one — and which it keeps, what it counts, and what it tells.
 */
import * as assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  McpSessionTable,
  type SessionTableOptions,
  type TrackedSession,
} from '../../../src/mcp/transport/mcpSessionTable';

type Table = McpSessionTable<StreamableHTTPServerTransport>;

/** Waits (bounded) until `condition` holds. */
async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Lets timers of `ms` (and some more) run; only for checking that something did NOT happen. */
function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('mcp/transport/mcpSessionTable', () => {
  let table: Table | undefined;
  let lines: string[];
  let counts: number[];

  function makeTable(options: Partial<SessionTableOptions> = {}): Table {
    table = new McpSessionTable<StreamableHTTPServerTransport>({
      idleMs: 0,
      streamGoneMs: 0,
      log: (line) => lines.push(line),
      onChanged: (count) => counts.push(count),
      ...options,
    });
    return table;
  }

  /** Opens a session as the /mcp endpoint does: the transport's close removes it. */
  function open(into: Table): TrackedSession<StreamableHTTPServerTransport> {
    const id = randomUUID();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => id });
    transport.onclose = () => into.remove(id, transport);
    return into.add(id, transport);
  }

  beforeEach(() => {
    lines = [];
    counts = [];
  });

  afterEach(async () => {
    await table?.close(1000);
    table = undefined;
  });

  it('counts sessions as they open and close, and logs each', async () => {
    const sessions = makeTable();
    const a = open(sessions);
    const b = open(sessions);
    assert.equal(sessions.size, 2);
    assert.equal(sessions.get(a.id), a);
    await a.transport.close();
    assert.equal(sessions.get(a.id), undefined);
    assert.equal(sessions.get(b.id), b);
    assert.deepEqual(counts, [1, 2, 1]);
    assert.deepEqual(lines, [
      `mcp http: session ${a.id} opened (1 open)`,
      `mcp http: session ${b.id} opened (2 open)`,
      `mcp http: session ${a.id} closed (1 open)`,
    ]);
  });

  it('ignores the close of a transport that no longer holds the id', () => {
    const sessions = makeTable();
    const session = open(sessions);
    const stranger = new StreamableHTTPServerTransport({ sessionIdGenerator: () => session.id });
    sessions.remove(session.id, stranger);
    assert.equal(sessions.get(session.id), session);
    assert.deepEqual(counts, [1]);
  });

  it('counts the sessions whose client holds its event stream', () => {
    const sessions = makeTable();
    const a = open(sessions);
    open(sessions);
    assert.equal(sessions.listeningCount(), 0);
    const streamEnded = sessions.begin(a, 'stream');
    const requestEnded = sessions.begin(a, 'request');
    assert.equal(sessions.listeningCount(), 1);
    requestEnded(false);
    assert.equal(sessions.listeningCount(), 1);
    streamEnded(true);
    assert.equal(sessions.listeningCount(), 0);
    assert.equal(sessions.size, 2);
  });

  it('closes a session whose client lost its event stream and sent nothing since', async () => {
    const sessions = makeTable({ streamGoneMs: 20 });
    const session = open(sessions);
    const kept = open(sessions);
    sessions.begin(session, 'stream')(true);
    await until(() => sessions.get(session.id) === undefined, 'the session to close');
    assert.equal(sessions.get(kept.id), kept);
    assert.ok(
      lines.includes(
        `mcp http: session ${session.id}: its client's event stream closed and did not come back ` +
          'within 20 ms; the client is gone, closing the session',
      ),
      lines.join('\n'),
    );
  });

  it('keeps a session whose stream dropped while a request runs or the stream came back', async () => {
    const sessions = makeTable({ streamGoneMs: 20 });
    const session = open(sessions);
    const requestEnded = sessions.begin(session, 'request');
    sessions.begin(session, 'stream')(true);
    await pause(100);
    assert.equal(sessions.get(session.id), session, 'a request in flight: the client is there');

    // The client re-opens its stream before the request ends: still there.
    const reopenedEnded = sessions.begin(session, 'stream');
    requestEnded(false);
    await pause(100);
    assert.equal(sessions.get(session.id), session, 'the stream came back');

    reopenedEnded(true);
    await until(() => sessions.get(session.id) === undefined, 'the session to close');
  });

  it('never takes a refused stream (no 200) for a client that had one', async () => {
    const sessions = makeTable({ streamGoneMs: 20 });
    const session = open(sessions);
    sessions.begin(session, 'stream')(false);
    sessions.begin(session, 'request')(false);
    await pause(100);
    assert.equal(sessions.get(session.id), session);
    assert.equal(session.hadStream, false);
  });

  it('closes idle sessions in its sweep, but none with a request in flight or a stream open', async () => {
    const sessions = makeTable({ idleMs: 20 });
    const idle = open(sessions);
    const busy = open(sessions);
    const listening = open(sessions);
    const requestEnded = sessions.begin(busy, 'request');
    const streamEnded = sessions.begin(listening, 'stream');
    await until(() => sessions.get(idle.id) === undefined, 'the idle session to close');
    assert.ok(lines.includes(`mcp http: session ${idle.id} idle, closing it`));
    await pause(100);
    assert.equal(sessions.size, 2);

    requestEnded(false);
    streamEnded(false);
    await until(() => sessions.size === 0, 'the sessions to go idle and close');
  });

  it('closes every session on close()', async () => {
    const sessions = makeTable({ idleMs: 60_000, streamGoneMs: 5000 });
    const a = open(sessions);
    const b = open(sessions);
    sessions.begin(b, 'stream');
    await sessions.close(1000);
    assert.equal(sessions.size, 0);
    assert.equal(sessions.get(a.id), undefined);
    assert.deepEqual(counts, [1, 2, 1, 0]);
  });

  it('logs an onChanged callback that throws, and goes on', async () => {
    const sessions = makeTable({
      onChanged: () => {
        throw new Error('status bar gone');
      },
    });
    const session = open(sessions);
    await session.transport.close();
    assert.equal(sessions.size, 0);
    assert.deepEqual(
      lines.filter((line) => line.includes('onSessionsChanged')),
      [
        'mcp http: onSessionsChanged failed: status bar gone',
        'mcp http: onSessionsChanged failed: status bar gone',
      ],
    );
  });
});
