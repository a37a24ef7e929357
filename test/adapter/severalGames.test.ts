/**
 * Several games on one attach port, with the test-support DebugClient against our adapter served
 * over TCP (as `luapanda-dap --server` does; here in this process). A client that opens child
 * sessions (DAP reverse request `startDebugging`) gets the attach session as the parent of every
 * game: each game that connects, the first included, makes the adapter ask for a child session,
 * and the test plays the client's part with a further DebugClient on the same server. Two real
 * Lua games stop independently; one steps while the other stays paused; one exits while the other
 * goes on; stopping the parent ends both. A client that does not open child sessions keeps the
 * first game in the attach session itself. The test-support client does not answer reverse
 * requests itself: the test reads them from its stream and answers them.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import { luaInterpreters } from '../harness/interpreters';
import { LuaProcess, REPO_ROOT, spawnLua } from '../harness/luaProcess';
import { quietPort } from '../harness/ports';
import { scenario } from '../harness/scenario';
import { TIMEOUT_MS } from './dapHarness';
import { type InProcessAdapter, serveAdapterInProcess } from './inProcessServer';

const RUNTIME_DIR = path.join(REPO_ROOT, 'dist', 'lua');
const GAME = scenario('severalGames').file('twoGames.lua');
const LOOP = scenario('severalGames').file('loopingGame.lua');
/** A line of loopingGame.lua that the test's time never reaches (after its 30 s loop). */
const LOOP_END_LINE = 13;
const reconnect = scenario('reconnect');
const BP_LINE = 9;

/** The parts of the test-support client's internals the test uses to answer reverse requests. */
interface ClientInternals {
  dispatch(body: string): void;
  outputStream: NodeJS.WritableStream;
}

/** Calls `onRequest` for each reverse request the adapter sends to `dc`, and answers it. */
function answerReverseRequests(
  dc: DebugClient,
  onRequest: (request: DebugProtocol.Request) => Promise<boolean>,
): void {
  const internals = dc as unknown as ClientInternals;
  const dispatch = internals.dispatch.bind(dc);
  internals.dispatch = (body: string) => {
    const message = JSON.parse(body) as DebugProtocol.ProtocolMessage;
    if (message.type !== 'request') return dispatch(body);
    const request = message as DebugProtocol.Request;
    void onRequest(request).then((success) => {
      const response: DebugProtocol.Response = {
        seq: 0,
        type: 'response',
        request_seq: request.seq,
        command: request.command,
        success,
      };
      const json = JSON.stringify(response);
      internals.outputStream.write(`Content-Length: ${Buffer.byteLength(json)}\r\n\r\n${json}`);
    });
  };
}

for (const lua of luaInterpreters().filter((l) => l.command === 'lua5.4' || l.isLuaJIT)) {
  describe(`adapter: several games on one attach port (${lua.command})`, function () {
    this.timeout(60_000);
    let adapter: InProcessAdapter;
    const clients: DebugClient[] = [];
    const games: LuaProcess[] = [];

    beforeEach(async () => {
      adapter = await serveAdapterInProcess();
    });

    afterEach(async () => {
      for (const game of games.splice(0)) game.kill();
      for (const dc of clients.splice(0)) await dc.stop().catch(() => undefined);
      await adapter.close();
    });

    async function client(): Promise<DebugClient> {
      const dc = new DebugClient('node', '', 'luapanda');
      dc.defaultTimeout = TIMEOUT_MS;
      await dc.start(adapter.port);
      clients.push(dc);
      return dc;
    }

    /** initialize, attach, the breakpoint, configurationDone: what a client does. */
    async function attach(
      dc: DebugClient,
      config: Record<string, unknown>,
      opensSessions = true,
      breakpoint = { path: GAME, line: BP_LINE },
    ): Promise<void> {
      await dc.initializeRequest({
        adapterID: 'luapanda',
        linesStartAt1: true,
        columnsStartAt1: true,
        pathFormat: 'path',
        supportsStartDebuggingRequest: opensSessions,
        // The attach response then comes at once, not when the game connects.
        supportsProgressReporting: true,
      });
      const attached = dc.attachRequest(config as DebugProtocol.AttachRequestArguments);
      await dc.waitForEvent('initialized');
      await dc.setBreakpointsRequest({
        source: { path: breakpoint.path },
        breakpoints: [{ line: breakpoint.line }],
      });
      await dc.configurationDoneRequest();
      await attached;
    }

    function launchGame(port: number, name: string): LuaProcess {
      const game = spawnLua(lua, GAME, { args: [String(port), name], luaPath: [RUNTIME_DIR] });
      games.push(game);
      return game;
    }

    /** A child session the parent asked for, started as VS Code starts one, by game name. */
    interface Child {
      readonly dc: DebugClient;
      /** Its first stop (the game stops as soon as its session is configured). */
      readonly stopped: Promise<DebugProtocol.StoppedEvent>;
      readonly terminated: Promise<unknown>;
    }

    /**
     * Answers the parent's `startDebugging` requests; `child(name)` resolves once the first child
     * of that name is up, `child(n)` once the n-th (from 0) is.
     */
    function openChildren(
      parent: DebugClient,
      breakpoint = { path: GAME, line: BP_LINE },
    ): (which: string | number) => Promise<Child> {
      const opened: { name: string; child: Child }[] = [];
      const waiters: (() => void)[] = [];
      const find = (which: string | number) =>
        typeof which === 'number'
          ? opened[which]?.child
          : opened.find((o) => o.name === which)?.child;
      answerReverseRequests(parent, async (request) => {
        if (request.command !== 'startDebugging') return false;
        const args = request.arguments as DebugProtocol.StartDebuggingRequestArguments;
        const name = String(args.configuration.name);
        const dc = await client();
        const child: Child = {
          dc,
          stopped: dc.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>,
          terminated: dc.waitForEvent('terminated', 45_000),
        };
        // Answer first (as VS Code does), then start the session it asked for.
        setImmediate(
          () =>
            void attach(dc, args.configuration, true, breakpoint).then(() => {
              opened.push({ name, child });
              for (const wake of waiters.splice(0)) wake();
            }),
        );
        return true;
      });
      return async (which) => {
        for (;;) {
          const found = find(which);
          if (found) return found;
          await new Promise<void>((resolve) => waiters.push(resolve));
        }
      };
    }

    it('gives every game a child session: stops, steps and exits independently', async () => {
      const gamePort = await quietPort();
      const parent = await client();
      const child = openChildren(parent);
      await attach(parent, { request: 'attach', connectionPort: gamePort, name: 'games' });
      const server1 = launchGame(gamePort, 'server');
      const server = await child('server');
      assert.equal((await server.stopped).body.reason, 'breakpoint');
      const client2 = launchGame(gamePort, 'client');
      const second = await child('client');
      assert.equal((await second.stopped).body.reason, 'breakpoint');
      const parentThreads = await parent.threadsRequest();
      assert.deepEqual(
        parentThreads.body.threads,
        [{ id: 1, name: 'Games' }],
        "the parent's one thread stands for its games (VS Code pauses a thread)",
      );
      const refused = await parent.stackTraceRequest({ threadId: 1 }).catch((e: Error) => e);
      assert.match(String(refused), /session of its own/);

      // The second game steps while the first stays paused at its breakpoint.
      const steppedEvent = second.dc.waitForEvent('stopped');
      await second.dc.nextRequest({ threadId: 1 });
      assert.equal((await steppedEvent).body.reason, 'step');
      const firstTop = await server.dc.stackTraceRequest({ threadId: 1, levels: 1 });
      assert.equal(firstTop.body.stackFrames[0]?.line, BP_LINE, 'the first game is still paused');

      // The first game runs to its end (the breakpoint is removed for it); the second goes on.
      await server.dc.setBreakpointsRequest({ source: { path: GAME }, breakpoints: [] });
      await server.dc.continueRequest({ threadId: 1 });
      assert.equal((await server1.waitForExit(TIMEOUT_MS)).code, 0, server1.stderr);
      assert.match(server1.stdout, /^server total 6$/m);
      await server.terminated;
      const secondTop = await second.dc.stackTraceRequest({ threadId: 1, levels: 1 });
      assert.equal(
        secondTop.body.stackFrames[0]?.line,
        BP_LINE + 1,
        'the second game stays where it stepped',
      );
      // The last game's end ends the parent (no autoReconnect), as an attach session ends.
      const parentEnded = parent.waitForEvent('terminated');
      await second.dc.setBreakpointsRequest({ source: { path: GAME }, breakpoints: [] });
      await second.dc.continueRequest({ threadId: 1 });
      assert.equal((await client2.waitForExit(TIMEOUT_MS)).code, 0, client2.stderr);
      assert.match(client2.stdout, /^client total 6$/m);
      await second.terminated;
      await parentEnded;
    });

    it('pause, continue and steps on the parent act on its games, or say why they cannot', async () => {
      const gamePort = await quietPort();
      const parent = await client();
      const never = { path: LOOP, line: LOOP_END_LINE };
      const child = openChildren(parent, never);
      await attach(
        parent,
        { request: 'attach', connectionPort: gamePort, name: 'games' },
        true,
        never,
      );
      const refusal = (request: Promise<unknown>) =>
        request.then(
          () => assert.fail('the request succeeded'),
          (e: Error) => e.message,
        );
      assert.match(await refusal(parent.pauseRequest({ threadId: 1 })), /No game is attached yet/);

      const looping: LuaProcess[] = [];
      const loop = (name: string) => {
        const game = spawnLua(lua, LOOP, {
          args: [String(gamePort), name],
          luaPath: [RUNTIME_DIR],
        });
        games.push(game);
        looping.push(game);
      };
      loop('one');
      const one = await child('one');
      // F6 with the parent focused: its game pauses.
      await parent.pauseRequest({ threadId: 1 });
      assert.equal((await one.stopped).body.reason, 'pause');
      assert.match(
        await refusal(parent.pauseRequest({ threadId: 1 })),
        /The game "one" is paused already: continue or step in the game's own session/,
      );
      let stepped = one.dc.waitForEvent('stopped');
      await parent.nextRequest({ threadId: 1 });
      assert.equal((await stepped).body.reason, 'step', "the parent's step moves its paused game");
      const resumed = one.dc.waitForEvent('continued');
      await parent.continueRequest({ threadId: 1 });
      await resumed;
      assert.match(
        await refusal(parent.stepInRequest({ threadId: 1 })),
        /no game is paused \("one" runs\)/,
      );

      // Two games: pause and continue act on both; a step must say which game.
      loop('two');
      const two = await child('two');
      const paused = [one, two].map((c) => c.dc.waitForEvent('stopped'));
      await parent.pauseRequest({ threadId: 1 });
      for (const stop of await Promise.all(paused)) assert.equal(stop.body.reason, 'pause');
      assert.match(
        await refusal(parent.stepOutRequest({ threadId: 1 })),
        /Several games are paused \("one", "two"\)/,
      );
      const continued = [one, two].map((c) => c.dc.waitForEvent('continued'));
      await parent.continueRequest({ threadId: 1 });
      await Promise.all(continued);
      stepped = two.dc.waitForEvent('stopped');
      await two.dc.pauseRequest({ threadId: 1 });
      await stepped;
      // One of two paused: the parent's step is that game's.
      const twoStepped = two.dc.waitForEvent('stopped');
      await parent.stepInRequest({ threadId: 1 });
      assert.equal((await twoStepped).body.reason, 'step');

      const parentEnded = parent.waitForEvent('terminated');
      await parent.disconnectRequest({});
      await Promise.all([one.terminated, two.terminated, parentEnded]);
      // Detached, the games loop on (for up to 30 s): end them here.
      for (const game of looping) {
        assert.equal(game.hasExited, false, 'the game ran on after the detach');
        game.kill();
        await game.waitForExit(TIMEOUT_MS).catch(() => undefined);
      }
    });

    it('stopping the parent ends every game session; the games run on', async () => {
      const gamePort = await quietPort();
      const parent = await client();
      const child = openChildren(parent);
      await attach(parent, { request: 'attach', connectionPort: gamePort, name: 'games' });
      const one = launchGame(gamePort, 'one');
      const two = launchGame(gamePort, 'two');
      const children = await Promise.all([child('one'), child('two')]);
      for (const c of children) assert.equal((await c.stopped).body.reason, 'breakpoint');
      const parentEnded = parent.waitForEvent('terminated');
      await parent.disconnectRequest({});
      await Promise.all(children.map((c) => c.terminated));
      await parentEnded;
      for (const [game, name] of [
        [one, 'one'],
        [two, 'two'],
      ] as const) {
        assert.equal((await game.waitForExit(TIMEOUT_MS)).code, 0, game.stderr);
        assert.match(game.stdout, new RegExp(`^${name} total 6$`, 'm'), 'detached, it ran on');
      }
    });

    it('with autoReconnect, a game that comes back is a child session again', async () => {
      const gamePort = await quietPort();
      const parent = await client();
      const file = reconnect.file('comesBack.lua');
      const child = openChildren(parent, {
        path: file,
        line: reconnect.line('comesBack.lua', 'label'),
      });
      await parent.initializeRequest({
        adapterID: 'luapanda',
        linesStartAt1: true,
        columnsStartAt1: true,
        pathFormat: 'path',
        supportsStartDebuggingRequest: true,
        supportsProgressReporting: true,
      });
      const attached = parent.attachRequest({
        request: 'attach',
        connectionPort: gamePort,
        name: 'games',
        autoReconnect: true,
      } as DebugProtocol.AttachRequestArguments);
      await parent.waitForEvent('initialized');
      await parent.configurationDoneRequest();
      await attached;
      const game = spawnLua(lua, file, { args: [String(gamePort)], luaPath: [RUNTIME_DIR] });
      games.push(game);
      const first = await child(0);
      assert.equal((await first.stopped).body.reason, 'breakpoint');
      await first.dc.continueRequest({ threadId: 1 });
      // The game drops its link: its session ends; it reconnects and is a child session again.
      await first.terminated;
      const second = await child(1);
      assert.equal((await second.stopped).body.reason, 'breakpoint');
      const parentEnded = parent.waitForEvent('terminated');
      await parent.disconnectRequest({});
      await second.terminated;
      await parentEnded;
      assert.equal((await game.waitForExit(TIMEOUT_MS)).code, 0, game.stderr);
      assert.match(game.stdout, /reconnected\tfalse/, 'detached by the stop, it ran on');
    });

    it('a client that opens no child sessions debugs the first game in the attach session', async () => {
      const gamePort = await quietPort();
      const dc = await client();
      await attach(dc, { request: 'attach', connectionPort: gamePort, name: 'one game' }, false);
      const stopped = dc.waitForEvent('stopped');
      const game = launchGame(gamePort, 'solo');
      assert.equal((await stopped).body.reason, 'breakpoint');
      const threads = await dc.threadsRequest();
      assert.equal(threads.body.threads[0]?.id, 1);
      const terminated = dc.waitForEvent('terminated');
      await dc.setBreakpointsRequest({ source: { path: GAME }, breakpoints: [] });
      await dc.continueRequest({ threadId: 1 });
      assert.equal((await game.waitForExit(TIMEOUT_MS)).code, 0, game.stderr);
      assert.match(game.stdout, /^solo total 6$/m);
      await terminated;
    });
  });
}
