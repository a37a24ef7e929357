/**
 * A runtime that refuses the handshake (our runtime does so for an initSuccess field of the wrong
 * type) replies with `error` and drops the link: the session ends at once with that reason, as a
 * coded error, instead of retrying or reporting a lost connection. The Lua side is a TCP peer
 * written here, so the reply goes through the real framing, schemas and listener.
 */
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { listenConnector } from '../../src/session/link/connectors';
import { SessionError } from '../../src/session/errors';
import { LuaSession } from '../../src/session/luaSession';
import { DEFAULT_SETTINGS, TerminatedInfo } from '../../src/session/types';

const REFUSAL = "initSuccess: field 'luaFileExtension' must be a string (got table)";

/** Connects to `port`, answers the first frame (initSuccess) with `error`, then hangs up. */
function refusingPeer(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('error', reject);
    socket.on('close', () => resolve());
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      const end = buffer.indexOf('|*|');
      if (end < 0) return;
      const request = JSON.parse(buffer.slice(0, end)) as { cmd: string; callbackId: string };
      if (request.cmd !== 'initSuccess') reject(new Error(`first frame: ${request.cmd}`));
      const reply = {
        cmd: 'initSuccess',
        callbackId: request.callbackId,
        info: { error: REFUSAL },
      };
      socket.end(JSON.stringify(reply) + '|*|\n');
    });
  });
}

describe('session/handshake refused by the runtime', () => {
  it('ends the session with the runtime reason, coded handshake-refused, without retrying', async () => {
    const connector = await listenConnector({ port: 0, host: '127.0.0.1' });
    const port = Number(connector.endpoint.split(':').pop());
    const session = new LuaSession({ ...DEFAULT_SETTINGS, cwd: process.cwd() });
    const terminated = new Promise<TerminatedInfo>((resolve) =>
      session.once('terminated', resolve),
    );
    // A retry would wait for a second game until this timeout and end with another code.
    const started = session.start(connector, { connectTimeoutMs: 20_000 });
    const peer = refusingPeer(port);
    await assert.rejects(started, (e) => {
      assert.ok(e instanceof SessionError, `expected a SessionError, got ${String(e)}`);
      assert.equal(e.code, 'handshake-refused');
      assert.equal(e.message, `The Lua runtime refused the handshake: ${REFUSAL}`);
      return true;
    });
    await peer;
    const end = await terminated;
    assert.equal(end.error?.code, 'handshake-refused');
    assert.match(end.reason, /refused the handshake: initSuccess: field 'luaFileExtension'/);
    assert.equal(session.state, 'Terminated');
  });
});
