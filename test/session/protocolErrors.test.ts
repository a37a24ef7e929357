/**
 * A frame that breaks the protocol is dropped by the protocol layer, and the session says so: a
 * `protocolError` event and a console line, while the session and the program go on. A malformed
 * stop frame matters most (the program is stopped while the IDE shows it running). The Lua side
 * is a TCP peer written here, so the frames go through the real framing, schemas and listener.
 */
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import type { ProtocolError } from '../../src/protocol';
import { listenConnector } from '../../src/session/link/connectors';
import { LuaSession } from '../../src/session/luaSession';
import { DEFAULT_SETTINGS, OutputEntry, StopInfo } from '../../src/session/types';

const send = (socket: net.Socket, message: object) =>
  socket.write(JSON.stringify(message) + ' |*|\n');

/** Connects to `port` and answers the handshake as upstream's runtime does (no extensions). */
function upstreamPeer(port: number): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    let buffer = '';
    socket.setEncoding('utf8');
    socket.on('error', reject);
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('|*|')) >= 0) {
        const request = JSON.parse(buffer.slice(0, end)) as { cmd: string; callbackId?: string };
        buffer = buffer.slice(end + 3).replace(/^\n/, '');
        if (request.cmd === 'initSuccess') {
          send(socket, {
            cmd: 'initSuccess',
            callbackId: request.callbackId,
            info: { debuggerVer: '3.3.1', UseHookLib: '0', isNeedB64EncodeStr: 'false' },
          });
          resolve(socket);
        }
      }
    });
  });
}

function once<T>(session: LuaSession, event: 'stopped' | 'protocolError'): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no '${event}' within 10 s`)), 10_000);
    session.once(event, (value: unknown) => {
      clearTimeout(timer);
      resolve(value as T);
    });
  });
}

describe('session/protocol errors from the Lua side', () => {
  it('reports a malformed stop frame as an event and a console line, and goes on', async () => {
    const connector = await listenConnector({ port: 0, host: '127.0.0.1' });
    const session = new LuaSession({ ...DEFAULT_SETTINGS, cwd: process.cwd() });
    const output: OutputEntry[] = [];
    session.on('output', (entry) => output.push(entry));
    const started = session.start(connector, { connectTimeoutMs: 10_000 });
    const peer = await upstreamPeer(Number(connector.endpoint.split(':').pop()));
    try {
      await started;
      assert.equal(session.state, 'Running');

      const reported = once<ProtocolError>(session, 'protocolError');
      send(peer, { cmd: 'stopOnBreakpoint', callbackId: '0', info: [], stack: 'not a stack' });
      const error = await reported;
      assert.equal(error.code, 'invalid-message');
      assert.match(error.message, /'stopOnBreakpoint' frame has an unexpected shape/);
      assert.equal(session.state, 'Running', 'the dropped stop is not shown');
      const line = output.find((e) => e.category === 'console' && /protocol error/.test(e.text));
      assert.match(
        line?.text ?? '',
        /^LuaPanda protocol error \(invalid-message\): A 'stopOnBreakpoint'/,
      );

      // The link survives: a well-formed stop that follows is shown.
      const stopped = once<StopInfo>(session, 'stopped');
      send(peer, {
        cmd: 'stopOnBreakpoint',
        callbackId: '0',
        info: [],
        stack: [{ file: 'main.lua', oPath: 'main.lua', line: '3', index: '2', name: 'f' }],
      });
      assert.equal((await stopped).frames[0].line, 3);
      assert.equal(session.state, 'Stopped');
    } finally {
      peer.destroy();
      await session.stopSession();
    }
  });
});
