// The pairing secret through the out-of-process adapter (DebugClient) and real Lua on every
// interpreter, over TCP that never leaves the machine: VS Code listens on 0.0.0.0 and the game
// connects through 127.0.0.1. With "connectionSecret" a stranger (garbage, silence) and a game
// with the wrong secret are refused while the attach keeps waiting, and the real game debugs;
// without it a game that has a secret says what to set; VS Code connecting to a game that
// listens pairs the same way. A stranger from the network that failed is held off a while, so a
// flood of them cannot keep the one connection slot busy.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { luaInterpreters } from '../harness/interpreters';
import { quietPort } from '../harness/ports';
import { LuaProcess, REPO_ROOT, spawnLua } from '../harness/luaProcess';
import { fixture } from './dapHarness';
import { useDapTest } from './useDapTest';

const RUNTIME_DIR = path.join(REPO_ROOT, 'dist', 'lua');
const DIR = path.join(REPO_ROOT, 'test', 'scenarios', 'pairing');
const CONNECTS = path.join(DIR, 'connects.lua');
const LISTENS = path.join(DIR, 'listens.lua');
const SECRET = 'a pairing secret for the tests';
const PROGRESS = { client: { supportsProgressReporting: true } };

function markerLine(file: string, marker: string): number {
  return (
    fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .findIndex((l) => l.includes(`@${marker}`)) + 1
  );
}

/** An IPv4 address of this machine that is not loopback (where a stranger on the network comes from). */
function networkAddress(): string | undefined {
  return Object.values(os.networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
}

/**
 * A stranger: connects (from `from`, default 127.0.0.1), sends `text` (or nothing) and waits until
 * it is dropped (bounded).
 */
function stranger(port: number, text: string | undefined, from = '127.0.0.1'): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: from, localAddress: from, port }, () => {
      if (text !== undefined) socket.write(text);
    });
    let got = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (got += chunk));
    socket.setTimeout(15_000, () => socket.destroy());
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(got));
  });
}

for (const lua of luaInterpreters()) {
  describe(`pairing through the adapter (${lua.command})`, function () {
    this.timeout(60_000);
    const t = useDapTest();
    const games: LuaProcess[] = [];
    const game = (file: string, args: string[]) => {
      const g = spawnLua(lua, file, {
        args,
        cwd: DIR,
        luaPath: [RUNTIME_DIR],
        env: { LUAPANDA_SECRET: undefined },
      });
      games.push(g);
      return g;
    };
    afterEach(async () => {
      for (const g of games.splice(0)) {
        g.kill();
        await g.exited;
      }
    });

    it('listening on 0.0.0.0: strangers and a wrong secret are refused, the wait goes on, the real game debugs', async () => {
      const port = await quietPort();
      const frameLine = markerLine(CONNECTS, 'frame');
      const waiting = t.waitForOutput(/Waiting for a Lua program/);
      const attached = t.start(
        'attach',
        { connectionPort: port, cwd: DIR, connectionHost: '0.0.0.0', connectionSecret: SECRET },
        { ...PROGRESS, breakpoints: { [CONNECTS]: [{ line: frameLine }] } },
      );
      await waiting;
      assert.match(
        t.output,
        /only a game that proves the pairing secret \("connectionSecret"\) is accepted/,
      );
      // Strangers first: garbage, a peer that says nothing, an upstream-style runtime reply.
      const garbage = await stranger(port, 'GET / HTTP/1.1\r\n\r\n');
      assert.doesNotMatch(
        garbage,
        /[/\\]scenarios[/\\]pairing/,
        'no path of this machine before the proof',
      );
      await stranger(port, '{"cmd":"initSuccess","callbackId":"1","info":{}}|*|\n');
      // A game with the wrong secret: refused, and it runs on.
      const wrong = game(CONNECTS, [String(port), 'not the secret']);
      await t.waitForOutput(/The game refused the pairing: pairing refused: wrong secret/);
      await wrong.waitForOutput(/alive 20/, 15_000);
      wrong.kill();
      // The real game.
      const real = game(CONNECTS, [String(port), SECRET]);
      await attached;
      const stop = await t.stoppedAt('breakpoint', CONNECTS, frameLine);
      const value = await t.dc.evaluateRequest({
        expression: 'treasure',
        frameId: stop.top.id,
        context: 'watch',
      });
      assert.equal(value.body.result, '"the game\'s own secret state"');
      await t.dc.evaluateRequest({
        expression: 'treasure = "stop"',
        frameId: stop.top.id,
        context: 'repl',
      });
      await t.dc.setBreakpointsRequest({ source: { path: CONNECTS }, breakpoints: [] });
      await t.dc.continueRequest({ threadId: stop.event.threadId ?? 1 });
      await real.waitForOutput(/done/, 15_000);
    });

    it('a stranger from the network that failed the pairing is held off; the game on this machine gets in', async function () {
      const address = networkAddress();
      if (address === undefined) this.skip();
      const port = await quietPort();
      const frameLine = markerLine(CONNECTS, 'frame');
      const waiting = t.waitForOutput(/Waiting for a Lua program/);
      const attached = t.start(
        'attach',
        { connectionPort: port, cwd: DIR, connectionHost: '0.0.0.0', connectionSecret: SECRET },
        { ...PROGRESS, breakpoints: { [CONNECTS]: [{ line: frameLine }] } },
      );
      await waiting;
      await stranger(port, 'GET / HTTP/1.1\r\n\r\n', address);
      // Again at once, from the same address: refused before anything is read or said.
      const again = await stranger(port, undefined, address);
      assert.equal(again, '');
      await t.waitForOutput(
        new RegExp(
          `Refused a Lua connection from ${address.replace(/\./g, '\\.')}:\\d+: it failed the pairing; it may try again in 1 s`,
        ),
      );
      // Loopback is never held off: the game on this machine pairs and debugs.
      game(CONNECTS, [String(port), SECRET]);
      await attached;
      const stop = await t.stoppedAt('breakpoint', CONNECTS, frameLine);
      await t.dc.evaluateRequest({
        expression: 'treasure = "stop"',
        frameId: stop.top.id,
        context: 'repl',
      });
      await t.dc.setBreakpointsRequest({ source: { path: CONNECTS }, breakpoints: [] });
      await t.dc.continueRequest({ threadId: stop.event.threadId ?? 1 });
    });

    it('without "connectionSecret", a game that has a secret says what to set', async () => {
      const port = await quietPort();
      const waiting = t.waitForOutput(/Waiting for a Lua program/);
      const attached = t.start(
        'attach',
        { connectionPort: port, cwd: DIR, connectionTimeout: 20 },
        PROGRESS,
      );
      await waiting;
      await attached;
      game(CONNECTS, [String(port), SECRET]);
      await t.waitForOutput(/requires a pairing secret: set "connectionSecret"/);
    });

    it('with "connectionSecret", a game without a secret is refused and told how to pair', async () => {
      const port = await quietPort();
      const waiting = t.waitForOutput(/Waiting for a Lua program/);
      const attached = t.start(
        'attach',
        { connectionPort: port, cwd: DIR, connectionSecret: SECRET, connectionTimeout: 20 },
        PROGRESS,
      );
      await waiting;
      await attached;
      const g = game(CONNECTS, [String(port), '-']);
      await t.waitForOutput(
        /did not answer the pairing that "connectionSecret" asks for: it has no pairing secret/,
      );
      await g.waitForOutput(/alive 20/, 15_000);
    });

    it('launch with "connectionSecret" hands the secret to the program it starts, and pairs', async () => {
      const program = fixture('breakpoints.lua');
      await t.launch(
        lua.command,
        program,
        { connectionSecret: SECRET },
        { breakpoints: { [program]: [{ line: 8 }] } },
      );
      // A stop proves the pairing: the adapter refuses a program that cannot answer it.
      await t.stoppedAt('breakpoint', program, 8);
      await t.dc.setBreakpointsRequest({ source: { path: program }, breakpoints: [] });
      await t.dc.continueRequest({ threadId: 1 });
      await t.ended();
    });

    it('connecting to a game that listens on 0.0.0.0 (VSCodeAsClient), both prove the secret', async () => {
      const port = await quietPort();
      const frameLine = markerLine(LISTENS, 'frame');
      const listening = game(LISTENS, [String(port), '0.0.0.0', SECRET, '-']);
      await listening.waitForOutput(/startServer false/);
      await t.start(
        'attach',
        {
          connectionPort: port,
          cwd: DIR,
          VSCodeAsClient: true,
          connectionIP: '127.0.0.1',
          connectionSecret: SECRET,
        },
        { breakpoints: { [LISTENS]: [{ line: frameLine }] } },
      );
      const stop = await t.stoppedAt('breakpoint', LISTENS, frameLine);
      await t.dc.evaluateRequest({
        expression: 'treasure = "stop"',
        frameId: stop.top.id,
        context: 'repl',
      });
      await t.dc.setBreakpointsRequest({ source: { path: LISTENS }, breakpoints: [] });
      await t.dc.continueRequest({ threadId: stop.event.threadId ?? 1 });
      await listening.waitForOutput(/done/, 15_000);
    });
  });
}
