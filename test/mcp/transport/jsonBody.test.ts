/**
 * readJsonBody on a real HTTP server on 127.0.0.1: a body within the limit is parsed, one that is
 * not JSON is told apart, and one over the limit — declared by Content-Length or streamed in chunks
 * — is refused without being buffered.
 */
import * as assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { readJsonBody, type BodyRead } from '../../../src/mcp/transport/jsonBody';
import { rawRequest } from './helpers';

const LIMIT = 1024;

/** What the server saw of one request: the read and the `tooLarge` report, if any. */
interface Seen {
  read: BodyRead;
  tooLarge?: string;
}

describe('mcp/transport/jsonBody', () => {
  let server: http.Server;
  let port: number;

  before(async () => {
    // Answers every request with what readJsonBody made of it.
    server = http.createServer((req, res) => {
      let tooLarge: string | undefined;
      void readJsonBody(req, LIMIT, (seen) => (tooLarge = seen)).then((read) => {
        const seen: Seen = { read, tooLarge };
        res.writeHead(200, { 'Content-Type': 'application/json', Connection: 'close' });
        res.end(JSON.stringify(seen));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  async function post(body: string | Buffer, chunked = false): Promise<Seen> {
    const response = await rawRequest({ port, method: 'POST', path: '/', body, chunked });
    assert.equal(response.status, 200);
    return JSON.parse(response.body) as Seen;
  }

  it('parses a JSON body within the limit', async () => {
    const message = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { text: 'ü|*|' } };
    assert.deepEqual(await post(JSON.stringify(message)), { read: { ok: true, value: message } });
  });

  it('parses a body of exactly the limit, sent in chunks', async () => {
    const text = JSON.stringify({ pad: 'x'.repeat(LIMIT - 10) });
    assert.equal(Buffer.byteLength(text), LIMIT);
    const seen = await post(text, true);
    assert.equal(seen.read.ok, true);
    assert.equal(seen.tooLarge, undefined);
  });

  it('tells a body that is not JSON (or is empty) apart as a parse error', async () => {
    assert.deepEqual(await post('{"jsonrpc":'), { read: { ok: false, parseError: true } });
    assert.deepEqual(await post(''), { read: { ok: false, parseError: true } });
  });

  it('refuses a body whose Content-Length is over the limit before reading it', async () => {
    const seen = await post(Buffer.alloc(LIMIT + 1, 0x20));
    assert.deepEqual(seen, {
      read: { ok: false, parseError: false },
      tooLarge: `Content-Length ${LIMIT + 1}`,
    });
  });

  it('refuses a streamed body as soon as it crosses the limit', async () => {
    const seen = await post(Buffer.alloc(4 * LIMIT, 0x20), true);
    assert.deepEqual(seen.read, { ok: false, parseError: false });
    const match = /^(\d+) bytes read so far$/.exec(seen.tooLarge ?? '');
    assert.ok(match, `tooLarge said ${seen.tooLarge}`);
    assert.ok(Number(match[1]) > LIMIT);
  });
});
