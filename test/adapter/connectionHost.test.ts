// Where the debug port listens (`connectionHost`), checked with real TCP connections through the
// out-of-process adapter: by default on 127.0.0.1 only — a connection to this machine's network
// address is refused while a game on this machine attaches — and with "0.0.0.0" on every
// interface, where a game that connects through the network address is debugged and the Debug
// Console says once that the port is open to the network. Launch listens the same way. Beyond
// loopback without a pairing secret the adapter refuses unless the configuration says
// "connectionInsecure" (the pairing itself is tested in pairing.test.ts).
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT, spawnLua } from '../harness/luaProcess';
import { fixture, freePort } from './dapHarness';
import { useDapTest } from './useDapTest';
import {
  describeListenHost,
  exposureNotice,
  isLoopbackHost,
  localAddressOf,
} from '../../src/session/link/listenHost';
import { unpairedExposure } from '../../src/adapter/exposureGuard';

const RUNTIME_DIR = path.join(REPO_ROOT, 'dist', 'lua');
const PROGRESS = { client: { supportsProgressReporting: true } };

/** An IPv4 address of this machine that is not loopback (what a phone would connect to). */
function networkAddress(): string | undefined {
  return Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
}

/** Opens a TCP connection and closes it at once: `connected`, or the error code. */
function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    socket.setTimeout(3000, () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

describe('connectionHost: where the debug port listens', () => {
  it('tells loopback from the network, and where a local program connects', () => {
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) {
      assert.ok(isLoopbackHost(host), host);
      assert.equal(exposureNotice(host, 8818), undefined, host);
    }
    for (const host of ['0.0.0.0', '::', '192.168.1.5']) {
      assert.ok(!isLoopbackHost(host), host);
      assert.match(exposureNotice(host, 8818) ?? '', /port 8818 listens on .*"connectionHost"/);
    }
    assert.match(describeListenHost('0.0.0.0'), /every interface \(0\.0\.0\.0\)/);
    assert.match(describeListenHost('127.0.0.1'), /127\.0\.0\.1 only \(this machine\)/);
    assert.equal(localAddressOf('0.0.0.0'), '127.0.0.1');
    assert.equal(localAddressOf('::'), '127.0.0.1');
    assert.equal(localAddressOf('192.168.1.5'), '192.168.1.5');
  });

  describe('through the adapter', function () {
    this.timeout(30_000);
    const lua = luaInterpreters()[0];
    const file = fixture('attach.lua');
    const t = useDapTest();

    it('attach listens on 127.0.0.1 only by default: the network address is refused', async function () {
      const address = networkAddress();
      if (address === undefined) this.skip();
      const game = await t.attachGame(lua, file, {
        ...PROGRESS,
        breakpoints: { [file]: [{ line: 7 }] },
        luaPath: [RUNTIME_DIR],
      });
      await t.stoppedAt('breakpoint', file, 7);
      const port = Number(/start\("127\.0\.0\.1", (\d+)\)/.exec(t.output)?.[1]);
      assert.ok(port > 0, t.output);
      // The listener is up (a game on this machine came in); the network address reaches nothing.
      assert.equal(await tryConnect(address, port), 'ECONNREFUSED');
      assert.match(t.output, /listening on 127\.0\.0\.1 only \(this machine\)/);
      assert.doesNotMatch(t.output, /other machines and devices/);
      await t.dc.disconnectRequest({});
      await game.waitForExit(15_000);
    });

    it('with "0.0.0.0" a game reaches it through the network address, and it says so once', async function () {
      const address = networkAddress();
      if (address === undefined) this.skip();
      const port = await freePort();
      const waiting = t.waitForOutput(/Waiting for a Lua program/);
      await t.start(
        'attach',
        {
          connectionPort: port,
          cwd: path.dirname(file),
          connectionHost: '0.0.0.0',
          connectionInsecure: true,
        },
        { ...PROGRESS, breakpoints: { [file]: [{ line: 7 }] } },
      );
      await waiting;
      const game = spawnLua(lua, file, {
        args: [String(port), address],
        cwd: path.dirname(file),
        luaPath: [RUNTIME_DIR],
      });
      await t.stoppedAt('breakpoint', file, 7);
      const [start] = await t.eventsNamed('progressStart');
      assert.match(JSON.stringify(start.body), new RegExp(`on 0\\.0\\.0\\.0:${port}`));
      const said = t.outputs.filter((o) => /every interface \(0\.0\.0\.0\)/.test(o.text));
      assert.equal(said.length, 1, JSON.stringify(t.outputs));
      assert.equal(said[0].category, 'console');
      await t.dc.disconnectRequest({});
      await game.waitForExit(15_000);
    });

    it('launch listens where connectionHost says; the program connects there; said once', async function () {
      const address = networkAddress();
      if (address === undefined) this.skip();
      const program = fixture('breakpoints.lua');
      await t.launch(
        lua.command,
        program,
        { connectionHost: address, connectionInsecure: true },
        { breakpoints: { [program]: [{ line: 8 }] } },
      );
      // The program connected to the address it was given, not to 127.0.0.1.
      await t.stoppedAt('breakpoint', program, 8);
      const said = t.outputs.filter((o) => o.text.includes(`listens on ${address}`));
      assert.equal(said.length, 1, JSON.stringify(t.outputs));
      assert.match(said[0].text, /other machines on that network can connect/);
    });

    it('refuses to listen beyond loopback without a pairing secret, unless told connectionInsecure', async () => {
      const port = await freePort();
      await assert.rejects(
        t.start('attach', { connectionPort: port, connectionHost: '0.0.0.0' }),
        /Will not listen on "0\.0\.0\.0" \("connectionHost": every interface .*\) without a pairing secret: .*"connectionInsecure": true/,
      );
      // Nothing listens: the refusal came before the port was opened.
      assert.equal(await tryConnect('127.0.0.1', port), 'ECONNREFUSED');
      for (const host of ['127.0.0.1', 'localhost', '::1']) {
        assert.equal(unpairedExposure({ connectionHost: host }), undefined, host);
      }
      assert.equal(
        unpairedExposure({ connectionHost: '0.0.0.0', connectionSecret: 's' }),
        undefined,
      );
      assert.equal(
        unpairedExposure({ connectionHost: '0.0.0.0', VSCodeAsClient: true }),
        undefined,
      );
      assert.match(
        unpairedExposure({ connectionHost: '192.168.1.5', connectionSecret: '' }) ?? '',
        /192\.168\.1\.5/,
      );
    });

    it('names an address this machine does not have', async () => {
      await assert.rejects(
        t.start('attach', {
          connectionPort: await freePort(),
          connectionHost: '203.0.113.7',
          connectionSecret: 'a secret',
        }),
        /Cannot listen on "203\.0\.113\.7" \("connectionHost"\): it is not an address of this machine/,
      );
    });
  });
});
