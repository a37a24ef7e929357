/**
 * LuaConnection's wire trace over real loopback TCP: each frame it sends and each it receives
 * is traced as it crossed the wire (without the delimiter), a frame it cannot use is followed by
 * its protocol error.
 */
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import { NO_TRACE, Tracer } from '../../src/common/trace';
import { LuaConnection, initSuccessInfo } from '../../src/protocol';

interface Pair {
  connection: LuaConnection;
  peer: net.Socket;
  server: net.Server;
  received: () => string;
}

async function pair(tracer: Tracer | undefined): Promise<Pair> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  const accepted = new Promise<net.Socket>((resolve) => server.once('connection', resolve));
  const socket = net.connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const peer = await accepted;
  let text = '';
  peer.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  return { connection: new LuaConnection(socket, { tracer }), peer, server, received: () => text };
}

async function close(p: Pair): Promise<void> {
  p.connection.destroy();
  p.peer.destroy();
  await new Promise<void>((resolve) => p.server.close(() => resolve()));
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('protocol: wire trace', () => {
  it('traces every frame both ways as it crossed the wire, and the errors of bad ones', async () => {
    const lines: string[] = [];
    const tracer = NO_TRACE.with(['wire.send', 'wire.receive'], (tag, text) =>
      lines.push(`${tag} ${text}`),
    );
    const p = await pair(tracer);
    try {
      const reply = p.connection.request('initSuccess', initSuccessInfo({ cwd: '/game' }));
      await until(() => p.received().includes('|*|\n'), 'the request on the wire');
      const sent = p.received().replace(/ \|\*\|\n$/, '');
      const id = (JSON.parse(sent) as { callbackId: string }).callbackId;
      const answer = `{"callbackId":"${id}","cmd":"initSuccess","info":{"debuggerVer":"3.3.1","UseHookLib":"0","UseLoadstring":"1","isNeedB64EncodeStr":"true"}}`;
      const unknown = '{"callbackId":"0","cmd":"whatIsThis","info":{}}';
      p.peer.write(`${answer}|*|\n${unknown}|*|\n{broken|*|\n`);
      await reply;
      await until(() => lines.length >= 5, `five lines: ${lines.join('\n')}`);
      assert.deepEqual(lines.slice(0, 4), [
        `wire.send ${sent}`,
        `wire.receive ${answer}`,
        `wire.receive ${unknown}`,
        lines[3],
      ]);
      assert.match(lines[3], /^wire\.receive \(protocol error: unknown-command\) .*whatIsThis/);
      assert.match(lines[4], /^wire\.receive \(protocol error: invalid-json\) /);
    } finally {
      await close(p);
    }
  });
});
