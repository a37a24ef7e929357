/**
 * Several games on one attach port, with the test-support DebugClient against our adapter served
 * over TCP (as `luapanda-dap --server` does; here in this process): a second game that connects
 * makes the adapter ask for a child session (DAP reverse request `startDebugging`); the test plays
 * the client's part with a second DebugClient on the same server. Two real Lua games stop
 * independently; one steps while the other stays paused; one exits while the other goes on.
 * The test-support client does not answer reverse requests itself: the test reads them from its
 * stream and answers them.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import { luaInterpreters } from '../harness/interpreters';
import { LuaProcess, REPO_ROOT, spawnLua } from '../harness/luaProcess';
import { quietPort } from '../harness/ports';
import { TIMEOUT_MS, fixture } from './dapHarness';
import { type InProcessAdapter, serveAdapterInProcess } from './inProcessServer';

const RUNTIME_DIR = path.join(REPO_ROOT, 'dist', 'lua');
const GAME = fixture('twoGames.lua');
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
    async function attach(dc: DebugClient, config: Record<string, unknown>): Promise<void> {
      await dc.initializeRequest({
        adapterID: 'luapanda',
        linesStartAt1: true,
        columnsStartAt1: true,
        pathFormat: 'path',
        supportsStartDebuggingRequest: true,
        // The attach response then comes at once, not when the game connects.
        supportsProgressReporting: true,
      });
      const attached = dc.attachRequest(config as DebugProtocol.AttachRequestArguments);
      await dc.waitForEvent('initialized');
      await dc.setBreakpointsRequest({ source: { path: GAME }, breakpoints: [{ line: BP_LINE }] });
      await dc.configurationDoneRequest();
      await attached;
    }

    function launchGame(port: number, name: string): LuaProcess {
      const game = spawnLua(lua, GAME, { args: [String(port), name], luaPath: [RUNTIME_DIR] });
      games.push(game);
      return game;
    }

    it('debugs each game in its own session: stops, steps and exits independently', async () => {
      const gamePort = await quietPort();
      const parent = await client();
      let child: DebugClient | undefined;
      let childName = '';
      let childStopped: Promise<DebugProtocol.StoppedEvent> | undefined;
      const childReady = new Promise<DebugClient>((resolve) => {
        answerReverseRequests(parent, async (request) => {
          if (request.command !== 'startDebugging') return false;
          const args = request.arguments as DebugProtocol.StartDebuggingRequestArguments;
          childName = String(args.configuration.name);
          child = await client();
          // Its game stops as soon as the session is configured: listen before that.
          childStopped = child.waitForEvent('stopped') as Promise<DebugProtocol.StoppedEvent>;
          // Answer first (as VS Code does), then start the session it asked for.
          setImmediate(() => void attach(child!, args.configuration).then(() => resolve(child!)));
          return true;
        });
      });
      await attach(parent, { request: 'attach', connectionPort: gamePort, name: 'games' });
      const server1 = launchGame(gamePort, 'server');
      const first = await parent.waitForEvent('stopped');
      assert.equal(first.body.reason, 'breakpoint');

      const client2 = launchGame(gamePort, 'client');
      const second = await childReady;
      assert.equal(childName, 'client');
      assert.ok(childStopped);
      const childStop = await childStopped;
      assert.equal(childStop.body.reason, 'breakpoint');

      // The second game steps while the first stays paused at its breakpoint.
      const steppedEvent = second.waitForEvent('stopped');
      await second.nextRequest({ threadId: 1 });
      const stepped = await steppedEvent;
      assert.equal(stepped.body.reason, 'step');
      const firstTop = await parent.stackTraceRequest({ threadId: 1, levels: 1 });
      assert.equal(firstTop.body.stackFrames[0]?.line, BP_LINE, 'the first game is still paused');

      // The first game runs to its end (the breakpoint is removed for it); the second goes on.
      await parent.setBreakpointsRequest({ source: { path: GAME }, breakpoints: [] });
      await parent.continueRequest({ threadId: 1 });
      assert.equal((await server1.waitForExit(TIMEOUT_MS)).code, 0, server1.stderr);
      assert.match(server1.stdout, /^server total 6$/m);
      const secondTop = await second.stackTraceRequest({ threadId: 1, levels: 1 });
      assert.equal(
        secondTop.body.stackFrames[0]?.line,
        BP_LINE + 1,
        'the second game stays where it stepped',
      );
      await second.setBreakpointsRequest({ source: { path: GAME }, breakpoints: [] });
      const terminated = second.waitForEvent('terminated');
      await second.continueRequest({ threadId: 1 });
      assert.equal((await client2.waitForExit(TIMEOUT_MS)).code, 0, client2.stderr);
      assert.match(client2.stdout, /^client total 6$/m);
      await terminated;
    });
  });
}
