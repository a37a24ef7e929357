// Attach with the out-of-process adapter: a real Lua "game" connects (or is connected to), is
// debugged, and runs on after the adapter detaches. Also the attach error paths.
import * as assert from 'node:assert/strict';
import * as net from 'node:net';
import * as path from 'node:path';
import { LuaInterpreter, luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT, spawnLua } from '../harness/luaProcess';
import { omit, scenario } from '../harness/scenario';
import { DapTest, TIMEOUT_MS, fixture, freePort } from './dapHarness';
import { useDapTest } from './useDapTest';

const RUNTIME_DIR = path.join(REPO_ROOT, 'dist', 'lua');
const reconnect = scenario('reconnect');
const exceptions = scenario('exceptions');
const attach = scenario('attach');

/**
 * Attaches to the game `file` with a breakpoint on `line` (by default line 7, where the
 * fixture attach.lua and exceptions' attachRuntimeError.lua have theirs) and waits for the stop there.
 */
async function attachGame(
  t: DapTest,
  lua: LuaInterpreter,
  file: string,
  attributes = {},
  line = 7,
) {
  const game = await t.attachGame(lua, file, {
    attributes,
    breakpoints: { [file]: [{ line }] },
    luaPath: [RUNTIME_DIR],
  });
  const stop = await t.stoppedAt('breakpoint', file, line);
  return { game, file, stop };
}

for (const lua of luaInterpreters()) {
  describe(`adapter attach on ${lua.command}`, function () {
    this.timeout(30_000);
    const t = useDapTest();

    it('waits for the game, stops it, detaches and lets it run on', async () => {
      const { game, stop } = await attachGame(t, lua, fixture('attach.lua'));
      assert.ok(Number((await t.locals(stop.top.id)).value) > 0);
      await t.dc.disconnectRequest({});
      const exit = await game.waitForExit(TIMEOUT_MS);
      assert.equal(exit.code, 0, game.stderr);
      assert.match(game.stdout, /game over\t4650/);
    });

    it('stops on a runtime error nothing catches, before the game dies', async () => {
      const { game, file } = await attachGame(t, lua, exceptions.file('attachRuntimeError.lua'));
      await t.dc.continueRequest({ threadId: 1 });
      const stop = await t.stoppedAt('exception', file, 7);
      assert.equal((await t.locals(stop.top.id)).count, '2');
      const info = await t.dc.exceptionInfoRequest({ threadId: stop.event.threadId ?? 1 });
      assert.match(info.body.description ?? '', /attempt to index .*'boss'/);
      await t.dc.continueRequest({ threadId: 1 });
      const exit = await game.waitForExit(TIMEOUT_MS);
      assert.equal(exit.code, 1);
      assert.match(game.stderr, /attachRuntimeError\.lua:7: attempt to index .*'boss'/);
      await t.ended();
    });

    it('with autoReconnect waits for the game to come back and stops it again', async () => {
      // The port is the test's: the rest of the configuration is the scenario's launch.json.
      const label = reconnect.line('comesBack.lua', 'label');
      const {
        game,
        file,
        stop: first,
      } = await attachGame(
        t,
        lua,
        reconnect.file('comesBack.lua'),
        omit(reconnect.configuration('Attach to comesBack.lua'), 'connectionPort'),
        label,
      );
      const firstN = (await t.locals(first.top.id)).n;
      assert.equal(
        firstN,
        '1',
        `first stop; game: ${game.stdout} ${game.stderr}; adapter: ${t.output}`,
      );
      await t.dc.continueRequest({ threadId: 1 });
      const second = await t.stoppedAt('breakpoint', file, label);
      assert.equal((await t.locals(second.top.id)).n, '2');
      assert.match(t.output, /disconnected; waiting for it/);
      await t.dc.disconnectRequest({});
      const exit = await game.waitForExit(TIMEOUT_MS);
      assert.equal(exit.code, 0, game.stderr);
      assert.match(game.stdout, /reconnected\tfalse/);
    });

    it('connects to a game that listens (VSCodeAsClient) and detaches', async () => {
      const port = await freePort();
      const file = attach.file('attachServer.lua');
      const game = spawnLua(lua, file, {
        args: [String(port)],
        cwd: path.dirname(file),
        luaPath: [RUNTIME_DIR],
      });
      await game.waitForOutput(/listening/);
      await t.start(
        'attach',
        {
          VSCodeAsClient: true,
          connectionIP: '127.0.0.1',
          connectionPort: port,
          cwd: path.dirname(file),
        },
        { breakpoints: { [file]: [{ line: 7 }] } },
      );
      await t.stoppedAt('breakpoint', file, 7);
      await t.dc.disconnectRequest({});
      const exit = await game.waitForExit(TIMEOUT_MS);
      assert.equal(exit.code, 0, game.stderr);
      assert.match(game.stdout, /served/);
    });
  });
}

describe('adapter attach errors', () => {
  const t = useDapTest();

  it('says when the port is in use', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, resolve));
    const address = blocker.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    try {
      await assert.rejects(t.start('attach', { connectionPort: port }), /already in use/);
      await t.ended();
      // Shown once, by the failed attach response: not again as an important notification.
      assert.equal(t.outputs.filter((o) => o.category === 'important').length, 0);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });

  it('ends cleanly, saying so, when the game dies', async () => {
    const lua = luaInterpreters()[0];
    const { game } = await attachGame(t, lua, fixture('attach.lua'));
    game.kill();
    await t.ended();
    assert.match(t.output, /closed the debug connection/);
    const threads = await t.dc.threadsRequest();
    assert.equal(threads.body.threads.length, 1);
  });

  it('says when no game connects within the timeout', async () => {
    const port = await freePort();
    await assert.rejects(
      t.start('attach', { connectionPort: port, connectionTimeout: 0.3 }),
      /No game connected within 0\.3 s \(connectionTimeout\)/,
    );
  });
});
