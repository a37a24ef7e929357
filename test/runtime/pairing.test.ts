/**
 * The pairing secret on the runtime's side (lua/luapanda/pairing.lua, sha256.lua), on every
 * interpreter, pure and native, over real TCP that never leaves the machine: a game listening on
 * 0.0.0.0 is reached through 127.0.0.1. A game refuses to listen beyond loopback without a
 * secret (unless told `insecure`); with one, nothing is obeyed until the IDE has proved it — each
 * forbidden command, garbage, a wrong secret, a peer that knows nothing of pairing and a replayed
 * handshake get one refusal and are dropped — and the game runs on; the right IDE debugs.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { luaInterpreters, runtimeVariants, LuaInterpreter } from '../harness/interpreters';
import { quietPort } from '../harness/ports';
import { LuaProcess, REPO_ROOT, spawnLua } from '../harness/luaProcess';
import { initSuccessInfo, pairingNonce, pairingProof, isPairingProof } from '../../src/protocol';
import { BUNDLE_DIR } from './helpers';
import { PairingPeer, PeerFrame } from './pairingPeer';

const DIR = path.join(REPO_ROOT, 'test', 'scenarios', 'pairing');
const SECRET = 'correct horse battery staple';

// FIPS 180-4's examples and RFC 4231's test cases 1-7 (case 5 truncated to 128 bits).
const VECTORS: Record<string, string> = {
  empty: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  abc: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
  '448': '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
  '896': 'cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1',
  hmac1: 'b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7',
  hmac2: '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
  hmac3: '773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe',
  hmac4: '82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b',
  hmac5: 'a3b6167473100ee06e0c796c2955552b',
  hmac6: '60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54',
  hmac7: '9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2',
};

const EXPECTED_OPS: Record<string, string> = {
  'Lua 5.1': 'arithmetic',
  'Lua 5.2': 'bit32',
  'Lua 5.3': 'integer',
  'Lua 5.4': 'integer',
  'Lua 5.5': 'integer',
};

for (const lua of luaInterpreters()) {
  describe(`pairing: SHA-256 and HMAC in pure Lua (${lua.command})`, function () {
    this.timeout(20_000);
    it("matches the standard's test vectors, with the operations chosen for this interpreter", async () => {
      const proc = spawnLua(lua, path.join(DIR, 'sha256.lua'), {
        luaPath: [path.join(REPO_ROOT, 'lua')],
      });
      const exit = await proc.waitForExit();
      assert.equal(exit.code, 0, proc.describe());
      const got = new Map(
        proc.stdout
          .trim()
          .split('\n')
          .map((l) => l.split(' ') as [string, string]),
      );
      assert.equal(
        got.get('implementation'),
        lua.isLuaJIT ? 'bit' : EXPECTED_OPS[lua.version.slice(0, 7)],
      );
      for (const [name, hex] of Object.entries(VECTORS)) assert.equal(got.get(name), hex, name);
      // Lengths around the padding's block boundary, against node:crypto.
      const { createHash } = await import('node:crypto');
      for (const n of [55, 56, 64]) {
        assert.equal(
          got.get(String(n)),
          createHash('sha256').update('a'.repeat(n)).digest('hex'),
          `${n} bytes`,
        );
      }
    });
  });
}

interface Game {
  proc: LuaProcess;
  port: number;
}

async function listeningGame(
  lua: LuaInterpreter,
  host: string,
  secret: string | undefined,
  insecure = false,
): Promise<Game> {
  const port = await quietPort();
  const proc = spawnLua(lua, path.join(DIR, 'listens.lua'), {
    args: [String(port), host, secret ?? '-', insecure ? 'insecure' : '-'],
    luaPath: [BUNDLE_DIR],
    cwd: DIR,
    env: { LUAPANDA_SECRET: undefined },
  });
  await proc.waitForOutput(/startServer (true|false)/);
  return { proc, port };
}

/** How many frames the game has counted so far (it prints "alive <n>"). */
function framesOf(game: Game): number {
  const all = [...game.proc.stdout.matchAll(/alive (\d+)/g)];
  return all.length > 0 ? Number(all[all.length - 1][1]) : 0;
}

/** Waits until the game has run `more` frames past now: it was not held. */
async function runsOn(game: Game, more = 20): Promise<void> {
  const from = framesOf(game);
  await game.proc.waitForOutput(
    new RegExp(`alive (${from + more}|[1-9]\\d{${String(from + more).length}})`),
    15_000,
  );
  assert.ok(framesOf(game) >= from + more);
}

/** The honest IDE's pairing; resolves with the final reply and the frames it sent. */
async function pair(peer: PairingPeer, secret: string) {
  const settings = {
    ...initSuccessInfo({ cwd: DIR, isNeedB64EncodeStr: false }),
    waitConfigurationDone: 'false' as const,
  };
  const ideNonce = pairingNonce();
  const hello = { ...settings, cwd: '', TempFilePath: '', pairNonce: ideNonce };
  const challenge = await peer.request('initSuccess', hello);
  assert.equal(challenge.info.pairing, 'challenge', JSON.stringify(challenge));
  const runtimeNonce = String(challenge.info.pairNonce);
  const proofInfo = {
    ...settings,
    pairNonce: ideNonce,
    pairProof: pairingProof(secret, 'ide', ideNonce, runtimeNonce),
  };
  const reply = await peer.request('initSuccess', proofInfo);
  return { reply, hello, proofInfo, ideNonce, runtimeNonce };
}

const FRAME_LINE =
  fs
    .readFileSync(path.join(DIR, 'listens.lua'), 'utf8')
    .split('\n')
    .findIndex((l) => l.includes('@frame')) + 1;

/** A paired IDE debugs: a breakpoint stops the game, a watch reads its state, and it goes on. */
async function debugOnce(peer: PairingPeer): Promise<void> {
  const file = path.join(DIR, 'listens.lua');
  await peer.request('setBreakPoint', { path: file, bks: [{ line: FRAME_LINE, type: 2 }] });
  const stop = await peer.next((f) => f.cmd === 'stopOnBreakpoint');
  const stackId = String(stop.stack?.[0]?.index);
  const value = await peer.request('getWatchedVariable', { varName: 'treasure', stackId });
  assert.match(JSON.stringify(value.info), /the game's own secret state/);
  await peer.request('setBreakPoint', { path: file, bks: [] });
  peer.send('continue', {});
}

/** The one refusal a failed peer gets, then the closed link. */
async function refused(peer: PairingPeer, pattern: RegExp): Promise<PeerFrame> {
  const frame = await peer.next((f) => typeof f.info.error === 'string');
  assert.match(String(frame.info.error), pattern);
  await peer.whenClosed();
  for (const f of peer.frames) {
    assert.ok(
      f.cmd === 'output' || typeof f.info.error === 'string' || f.info.pairing === 'challenge',
      JSON.stringify(f),
    );
  }
  return frame;
}

const FORBIDDEN: [string, object][] = [
  ['runREPLExpression', { Expression: 'treasure = "stop"', stackId: '0' }],
  ['getWatchedVariable', { varName: 'treasure', stackId: '0' }],
  ['getVariable', { varRef: '10000', stackId: '0' }],
  ['setVariable', { varRef: '10000', varName: 'treasure', newValue: '"stop"', stackId: '0' }],
  ['hotReload', { path: path.join(DIR, 'listens.lua'), source: 'treasure = "stop"' }],
  ['setBreakPoint', { path: path.join(DIR, 'listens.lua'), bks: [{ line: 20, type: 2 }] }],
  ['LuaGarbageCollect', {}],
  ['stopRun', {}],
];

for (const lua of runtimeVariants()) {
  describe(`pairing: a game that listens (${lua.label})`, function () {
    this.timeout(60_000);
    const games: Game[] = [];
    const peers: PairingPeer[] = [];
    const connect = async (port: number) => {
      const peer = await PairingPeer.connect(port);
      peers.push(peer);
      return peer;
    };
    const start = async (
      ...args: Parameters<typeof listeningGame> extends [LuaInterpreter, ...infer R] ? R : never
    ) => {
      const game = await listeningGame(lua, ...args);
      games.push(game);
      return game;
    };
    afterEach(async () => {
      for (const p of peers.splice(0)) p.close();
      for (const g of games.splice(0)) {
        g.proc.kill();
        await g.proc.exited;
      }
    });

    it('listens on 127.0.0.1 when startServer names no host, saying nothing', async () => {
      const game = await start('-', undefined);
      assert.match(game.proc.stdout, /startServer false/); // nobody connected yet
      assert.equal(game.proc.stderr, '');
      const peer = await connect(game.port);
      const reply = await peer.request('initSuccess', initSuccessInfo({ cwd: DIR }));
      assert.equal(reply.info.runtime, 'luapanda-mcp');
      // Another address of this machine, when it has one, does not reach it.
      const other = Object.values(os.networkInterfaces())
        .flat()
        .find((a) => a && a.family === 'IPv4' && !a.internal);
      if (other) {
        await assert.rejects(PairingPeer.connect(game.port, other.address, 300));
      }
    });

    it('refuses to listen on 0.0.0.0 without a secret, and says why', async () => {
      const game = await start('0.0.0.0', undefined);
      assert.match(game.proc.stdout, /startServer false/);
      assert.match(
        game.proc.stderr,
        /startServer\("0\.0\.0\.0", \d+\) refused: .*secret.*insecure = true/,
      );
      await runsOn(game);
      await assert.rejects(PairingPeer.connect(game.port, '127.0.0.1', 500));
    });

    it('listens on 0.0.0.0 when told { insecure = true }, and says so loudly', async () => {
      const game = await start('0.0.0.0', undefined, true);
      assert.match(game.proc.stderr, /WARNING: .*WITHOUT A PAIRING SECRET.*ANYONE/);
      const peer = await connect(game.port);
      const reply = await peer.request('initSuccess', initSuccessInfo({ cwd: DIR }));
      assert.equal(reply.info.error, undefined);
    });

    it('with a secret, the right IDE pairs (each side proves it) and debugs', async () => {
      const game = await start('0.0.0.0', SECRET);
      assert.match(
        game.proc.stderr,
        /listening on 0\.0\.0\.0:\d+: IDEs on other machines can connect; only one that proves/,
      );
      const peer = await connect(game.port);
      const { reply, ideNonce, runtimeNonce } = await pair(peer, SECRET);
      assert.equal(reply.info.error, undefined);
      assert.ok(
        isPairingProof(
          reply.info.pairProof,
          pairingProof(SECRET, 'runtime', ideNonce, runtimeNonce),
        ),
      );
      assert.ok(!JSON.stringify(peer.frames).includes(SECRET), 'the secret never crosses the wire');
      await debugOnce(peer);
      await runsOn(game);
    });

    it('obeys no command before the handshake: each forbidden command is refused and dropped', async () => {
      const game = await start('0.0.0.0', SECRET);
      for (const [cmd, info] of FORBIDDEN) {
        const peer = await connect(game.port);
        peer.send(cmd, info);
        const frame = await refused(peer, /nothing is obeyed before the handshake/);
        assert.equal(frame.cmd, cmd);
      }
      await runsOn(game);
      assert.doesNotMatch(game.proc.stdout, /done/);
    });

    it('refuses garbage, a peer that knows nothing of pairing, and a wrong secret', async () => {
      const game = await start('0.0.0.0', SECRET);
      let peer = await connect(game.port);
      peer.write('GET / HTTP/1.1\r\nHost: game\r\n\r\n');
      await refused(peer, /malformed frame/);

      peer = await connect(game.port);
      peer.send('initSuccess', initSuccessInfo({ cwd: DIR }));
      await refused(peer, /requires a pairing secret: set "connectionSecret"/);
      assert.ok(
        peer.frames.some(
          (f) => f.cmd === 'output' && /connectionSecret/.test(String(f.info.logInfo)),
        ),
      );

      peer = await connect(game.port);
      const settings = initSuccessInfo({ cwd: DIR });
      const ideNonce = pairingNonce();
      const challenge = await peer.request('initSuccess', { ...settings, pairNonce: ideNonce });
      peer.send('initSuccess', {
        ...settings,
        pairNonce: ideNonce,
        pairProof: pairingProof('wrong', 'ide', ideNonce, String(challenge.info.pairNonce)),
      });
      await refused(peer, /wrong secret/);
      await runsOn(game);
    });

    it('refuses a replayed handshake: the game answers with a fresh nonce', async () => {
      const game = await start('0.0.0.0', SECRET);
      let peer = await connect(game.port);
      const captured = await pair(peer, SECRET);
      assert.equal(captured.reply.info.error, undefined);
      peer.close();
      await runsOn(game, 10);
      // A stranger replays both frames it saw, byte for byte.
      peer = await connect(game.port);
      const challenge = await peer.request('initSuccess', captured.hello);
      assert.notEqual(challenge.info.pairNonce, captured.runtimeNonce);
      peer.send('initSuccess', captured.proofInfo);
      await refused(peer, /wrong secret/);
      // A proof sent without a challenge of its own connection is refused too.
      peer = await connect(game.port);
      peer.send('initSuccess', captured.proofInfo);
      await refused(peer, /answers no challenge of this connection/);
      await runsOn(game);
    });

    it('a flood of strangers neither stops the game nor breaks the real session', async () => {
      const game = await start('0.0.0.0', SECRET);
      // Before the IDE: strangers that send garbage, and ones that connect and say nothing.
      const flood = Array.from({ length: 12 }, async (_, i) => {
        const peer = await connect(game.port).catch(() => undefined);
        if (!peer) return;
        if (i % 2 === 0) peer.write('\u0000\u0001garbage\n');
        await peer.whenClosed(15_000).catch(() => peer.close());
      });
      await Promise.all(flood);
      await runsOn(game);
      const ide = await connect(game.port);
      const { reply } = await pair(ide, SECRET);
      assert.equal(reply.info.error, undefined);
      // While it is attached, strangers cannot even connect: the game listens no more.
      for (let i = 0; i < 5; i++) {
        await assert.rejects(PairingPeer.connect(game.port, '127.0.0.1', 100));
      }
      await debugOnce(ide);
      await runsOn(game);
    });
  });
}
