/**
 * The bridge's end on its own, with real stdio streams and the SDK's stdio transport: it ends
 * once, whatever asks; a failure is logged and answers every request still waiting with its
 * reason on stdout; the end of stdin is a clean end; its stream listeners are gone afterwards.
 */
import * as assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { BridgeRequests } from '../../../src/mcp/transport/bridgeRequests';
import { BridgeShutdown } from '../../../src/mcp/transport/bridgeShutdown';

interface Rig {
  stdin: PassThrough;
  stdout: PassThrough;
  requests: BridgeRequests;
  logged: string[];
  shutdown: BridgeShutdown;
  /** Every line written to stdout so far, parsed. */
  written(): unknown[];
}

async function rig(): Promise<Rig> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  let text = '';
  stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const stdio = new StdioServerTransport(stdin, stdout);
  await stdio.start();
  const requests = new BridgeRequests();
  const logged: string[] = [];
  const shutdown = new BridgeShutdown({
    stdin,
    stdout,
    stdio,
    requests,
    log: (line) => logged.push(line),
    sessionAtEnd: () => ({ inUse: false }),
  });
  const written = (): unknown[] =>
    text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as unknown);
  return { stdin, stdout, requests, logged, shutdown, written };
}

describe('mcp/transport/bridgeShutdown', () => {
  it('a failure is logged, answers every waiting request, and ends the bridge once', async () => {
    const r = await rig();
    r.requests.clientRequest(1, 'tools/call');
    r.requests.clientRequest('b', 'tools/list');
    assert.equal(r.shutdown.finished, undefined);
    const first = r.shutdown.fail('the server went away');
    const second = r.shutdown.finish({ exitCode: 0, reason: 'closed' });
    const expected = { exitCode: 1, reason: 'the server went away' };
    assert.deepEqual(await first, expected);
    assert.deepEqual(await second, expected, 'the first end wins');
    assert.deepEqual(await r.shutdown.done, expected);
    assert.deepEqual(r.shutdown.finished, expected);
    assert.deepEqual(r.logged, ['the server went away']);
    assert.deepEqual(
      r.written(),
      [1, 'b'].map((id) => ({
        jsonrpc: '2.0',
        id,
        error: { code: -32000, message: 'the server went away' },
      })),
    );
    assert.deepEqual(r.requests.waiting(), []);
  });

  it('stdin ending is a clean end that answers nothing, and the listeners go', async () => {
    const r = await rig();
    r.requests.clientRequest(1, 'tools/call');
    r.stdin.end();
    assert.deepEqual(await r.shutdown.done, { exitCode: 0, reason: 'stdin ended' });
    assert.deepEqual(r.written(), []);
    assert.deepEqual(r.logged, []);
    assert.equal(r.stdin.listenerCount('end'), 0);
    assert.equal(r.stdin.listenerCount('close'), 0);
    assert.equal(r.stdout.listenerCount('error'), 0);
  });

  it('a failing stdout ends the bridge cleanly, naming the error', async () => {
    const r = await rig();
    const error: NodeJS.ErrnoException = Object.assign(new Error('pipe'), { code: 'EPIPE' });
    r.stdout.emit('error', error);
    assert.deepEqual(await r.shutdown.done, { exitCode: 0, reason: 'stdout closed (EPIPE)' });
  });
});
