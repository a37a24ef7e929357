/**
 * `src/protocol` against real interpreters over real TCP on 127.0.0.1: a Lua peer written with
 * luasocket (test/fixtures/peer/protocolPeer.lua) exchanges frames with `LuaConnection` in both
 * connection directions — big payloads, unicode, bursts, frames split across writes, garbage,
 * upstream's dialect, a stale id, a peer that dies mid-frame.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import {
  ConnectionClosedError,
  LuaConnection,
  LuaListener,
  LuaNotification,
  ProtocolError,
  RequestTimeoutError,
  connectToLua,
  initSuccessInfo,
} from '../../src/protocol';
import { luaInterpreters } from '../harness/interpreters';
import { LuaProcess, REPO_ROOT, spawnLua } from '../harness/luaProcess';

const PEER = path.join(REPO_ROOT, 'test', 'fixtures', 'peer', 'protocolPeer.lua');

interface Link {
  lua: LuaProcess;
  connection: LuaConnection;
  notifications: LuaNotification[];
  errors: ProtocolError[];
  listener?: LuaListener;
  cleanup(): Promise<void>;
}

function record(connection: LuaConnection) {
  const notifications: LuaNotification[] = [];
  const errors: ProtocolError[] = [];
  connection.on('notification', (n) => notifications.push(n));
  connection.on('protocolError', (e) => errors.push(e));
  return { notifications, errors };
}

async function repl(
  connection: LuaConnection,
  expression: string,
  timeoutMs?: number,
): Promise<string> {
  const reply = await connection.request(
    'runREPLExpression',
    { Expression: expression, stackId: '2' },
    { timeoutMs },
  );
  assert.equal(reply.length, 1);
  return reply[0].value;
}

for (const interpreter of luaInterpreters()) {
  describe(`protocol against real ${interpreter.command} (${interpreter.version})`, () => {
    /** The IDE listens; the Lua peer connects (the default direction). */
    async function luaConnects(): Promise<Link> {
      const listener = await LuaListener.listen({ port: 0, host: '127.0.0.1' });
      const lua = spawnLua(interpreter, PEER, {
        args: ['client', '127.0.0.1', String(listener.port)],
      });
      const connection = await listener.waitForConnection({ timeoutMs: 10_000 });
      return {
        lua,
        connection,
        listener,
        ...record(connection),
        cleanup: async () => {
          connection.destroy();
          await listener.close();
          lua.kill();
          await lua.exited;
        },
      };
    }

    /** The Lua peer listens; the IDE connects (`VSCodeAsClient`). */
    async function ideConnects(): Promise<Link> {
      const lua = spawnLua(interpreter, PEER, { args: ['server', '127.0.0.1', '0'] });
      const [, port] = await lua.waitForOutput(/LISTENING (\d+)/);
      const connection = await connectToLua({
        host: '127.0.0.1',
        port: Number(port),
        timeoutMs: 10_000,
      });
      return {
        lua,
        connection,
        ...record(connection),
        cleanup: async () => {
          connection.destroy();
          lua.kill();
          await lua.exited;
        },
      };
    }

    for (const [direction, open] of [
      ['Lua connects to the IDE', luaConnects],
      ['the IDE connects to Lua', ideConnects],
    ] as const) {
      describe(direction, () => {
        let link: Link;
        beforeEach(async () => {
          link = await open();
        });
        afterEach(async () => link.cleanup());

        it('completes the handshake and a clean stop', async () => {
          const reply = await link.connection.request(
            'initSuccess',
            initSuccessInfo({ isNeedB64EncodeStr: false }),
          );
          assert.equal(reply.debuggerVer, '3.3.1');
          assert.equal(reply.UseLoadstring, true);
          await link.connection.request('stopRun', {});
          const exit = await link.lua.waitForExit();
          assert.equal(exit.code, 0, link.lua.stderr);
          assert.deepEqual(link.errors, []);
        });

        it('carries unicode and the delimiter inside strings both ways', async () => {
          for (const name of [
            '日本語 🎉 文件名',
            'a|*|b',
            'quote " backslash \\ tab \t',
            'é'.repeat(500),
          ]) {
            const reply = await link.connection.request('getWatchedVariable', {
              varName: name,
              stackId: '2',
            });
            assert.deepEqual(
              reply.map((v) => [v.name, v.value]),
              [[name, name]],
            );
          }
          assert.deepEqual(link.errors, []);
        });

        it('receives a payload larger than 1 MB in one frame', async () => {
          const size = 1_500_000;
          const value = await repl(link.connection, `big ${size}`);
          assert.equal(Buffer.byteLength(value, 'utf8'), size);
          assert.ok(value.endsWith('€'));
        });

        it('receives a burst of frames in one write, in order', async () => {
          const value = await repl(link.connection, 'burst 2000');
          assert.equal(value, 'burst done');
          const texts = link.notifications.map((n) => (n.kind === 'log' ? n.text : ''));
          assert.equal(texts.length, 2000);
          assert.deepEqual(texts.slice(0, 3), ['burst 1', 'burst 2', 'burst 3']);
          assert.equal(texts[1999], 'burst 2000');
        });

        it('reassembles a frame written in small pieces, cut inside characters', async () => {
          assert.equal(await repl(link.connection, 'split'), 'héllo wörld ✓ 日本語 🎉');
        });

        it('reports garbage and unknown commands, and goes on', async () => {
          assert.equal(await repl(link.connection, 'garbage'), 'after garbage');
          assert.deepEqual(
            link.errors.map((e) => e.code),
            ['invalid-json', 'unknown-command', 'invalid-message'],
          );
          const log = link.notifications.find((n) => n.kind === 'log');
          assert.deepEqual(log, { kind: 'log', cmd: 'output', text: 'ctrl\u0001char' });
        });

        it("reads upstream's stop dialect", async () => {
          await repl(link.connection, 'upstreamStop');
          await waitUntil(() => link.notifications.length >= 2);
          const [stop, memory] = link.notifications;
          assert.ok(stop.kind === 'stop' && stop.cmd === 'stopOnBreakpoint');
          if (stop.kind !== 'stop') return;
          assert.deepEqual(stop.stack, [
            { line: 41, name: '文件名', index: 2, file: 'sample.lua', oPath: 'sample.lua' },
          ]);
          assert.deepEqual(memory, { kind: 'memory', cmd: 'refreshLuaMemory', kilobytes: 254.19 });
        });

        it('drops a reply that carries the right id but the wrong command', async () => {
          assert.equal(await repl(link.connection, 'wrongCmd'), 'right reply');
          assert.deepEqual(
            link.errors.map((e) => e.code),
            ['mismatched-reply'],
          );
        });

        it('times out a request that gets no answer, and the link stays usable', async () => {
          await assert.rejects(repl(link.connection, 'silence', 200), RequestTimeoutError);
          assert.equal(link.connection.pendingRequests, 0);
          assert.equal(await repl(link.connection, 'split'), 'héllo wörld ✓ 日本語 🎉');
        });

        it('survives the peer dying mid-frame: pending requests reject, the cut is reported', async () => {
          const closed = new Promise((resolve) => link.connection.once('close', resolve));
          await assert.rejects(repl(link.connection, 'die'), ConnectionClosedError);
          await closed;
          assert.equal(link.connection.closed, true);
          assert.deepEqual(
            link.errors.map((e) => e.code),
            ['truncated-frame'],
          );
          assert.equal((await link.lua.waitForExit()).code, 3);
          await assert.rejects(repl(link.connection, 'split'), ConnectionClosedError);
        });
      });
    }

    it('rejects a second Lua connection while one is active, and accepts one after it ends', async () => {
      const link = await luaConnects();
      const listener = link.listener!;
      const rejected = new Promise<string>((resolve) =>
        listener.once('rejected', (r) => resolve(r.reason)),
      );
      const second = spawnLua(interpreter, PEER, {
        args: ['client', '127.0.0.1', String(listener.port)],
      });
      assert.match(await rejected, /already connected/);
      const secondExit = await second.waitForExit();
      assert.equal(secondExit.code, 0, 'the rejected peer sees a closed socket and ends normally');
      const firstClosed = new Promise((resolve) => link.connection.once('close', resolve));
      await link.connection.request('stopRun', {});
      await link.lua.waitForExit();
      await firstClosed;
      const third = spawnLua(interpreter, PEER, {
        args: ['client', '127.0.0.1', String(listener.port)],
      });
      const connection = await listener.waitForConnection({ timeoutMs: 10_000 });
      await connection.request('stopRun', {});
      await third.waitForExit();
      await link.cleanup();
    });
  });
}

async function waitUntil(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
