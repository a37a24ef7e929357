/**
 * A compound of two `luapanda` launch configurations, as VS Code starts it: two launch sessions
 * at once, each with its own adapter — here both in this process over TCP, as VS Code's inline
 * adapters share the extension host — and its own program. Each launch listens on a port of its
 * own (a free one, whatever `connectionPort` says, so two launches never collide); both programs
 * stop at the shared breakpoint; one runs to its end while the other stays paused, then the other.
 */
import * as assert from 'node:assert/strict';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { DebugClient } from '@vscode/debugadapter-testsupport';
import { luaInterpreters } from '../harness/interpreters';
import { TIMEOUT_MS, fixture } from './dapHarness';
import { type InProcessAdapter, serveAdapterInProcess } from './inProcessServer';

const PROGRAM = fixture('breakpoints.lua');
/** `total = add(total, i)`, inside the loop. */
const BP_LINE = 8;

for (const lua of luaInterpreters().filter((l) => l.command === 'lua5.4' || l.isLuaJIT)) {
  describe(`adapter: a compound of two launch configurations (${lua.command})`, function () {
    this.timeout(60_000);
    let adapter: InProcessAdapter;
    const clients: DebugClient[] = [];

    beforeEach(async () => {
      adapter = await serveAdapterInProcess();
    });

    afterEach(async () => {
      for (const dc of clients.splice(0)) {
        await dc.disconnectRequest({ terminateDebuggee: true }).catch(() => undefined);
        await dc.stop().catch(() => undefined);
      }
      await adapter.close();
    });

    /** A client that launches the program as VS Code does, recording its output. */
    async function launch(name: string): Promise<{
      dc: DebugClient;
      output: () => string;
      pid: Promise<number>;
      firstStop: Promise<DebugProtocol.Event>;
    }> {
      const dc = new DebugClient('node', '', 'luapanda');
      dc.defaultTimeout = TIMEOUT_MS;
      await dc.start(adapter.port);
      clients.push(dc);
      let output = '';
      dc.on('output', (e: DebugProtocol.OutputEvent) => (output += e.body.output));
      const pid = dc
        .waitForEvent('process')
        .then((e) => (e as DebugProtocol.ProcessEvent).body.systemProcessId ?? 0);
      await dc.initializeRequest({
        adapterID: 'luapanda',
        linesStartAt1: true,
        columnsStartAt1: true,
        pathFormat: 'path',
      });
      const launched = dc.launchRequest({
        name,
        program: PROGRAM,
        cwd: fixture(),
        luaPath: lua.command,
        // What a configuration copied from upstream LuaPanda carries: launches ignore it.
        connectionPort: 8818,
      } as DebugProtocol.LaunchRequestArguments);
      await dc.waitForEvent('initialized');
      await dc.setBreakpointsRequest({
        source: { path: PROGRAM },
        breakpoints: [{ line: BP_LINE }],
      });
      // The program may stop before the launch response: listen before it runs.
      const firstStop = dc.waitForEvent('stopped');
      await dc.configurationDoneRequest();
      await launched;
      return { dc, output: () => output, pid, firstStop };
    }

    it('runs both launches at once, each stopping and ending on its own', async () => {
      const [first, second] = await Promise.all([launch('Lua: one'), launch('Lua: two')]);
      for (const { dc, firstStop } of [first, second]) {
        assert.equal(((await firstStop) as DebugProtocol.StoppedEvent).body.reason, 'breakpoint');
        const top = await dc.stackTraceRequest({ threadId: 1, levels: 1 });
        assert.equal(top.body.stackFrames[0]?.line, BP_LINE);
      }
      const [pid1, pid2] = await Promise.all([first.pid, second.pid]);
      assert.notEqual(pid1, pid2, 'two programs');

      // The first runs to its end; the second stays paused at its breakpoint.
      await first.dc.setBreakpointsRequest({ source: { path: PROGRAM }, breakpoints: [] });
      const ended = first.dc.waitForEvent('terminated');
      await first.dc.continueRequest({ threadId: 1 });
      await ended;
      assert.match(first.output(), /total\t15/);
      const top = await second.dc.stackTraceRequest({ threadId: 1, levels: 1 });
      assert.equal(top.body.stackFrames[0]?.line, BP_LINE, 'the second program is still paused');
      const locals = await second.dc.scopesRequest({ frameId: top.body.stackFrames[0].id });
      assert.ok(locals.body.scopes.length > 0);

      // The second hits its breakpoint again, then runs to its end too.
      const again = second.dc.assertStoppedLocation('breakpoint', { path: PROGRAM, line: BP_LINE });
      await second.dc.continueRequest({ threadId: 1 });
      await again;
      await second.dc.setBreakpointsRequest({ source: { path: PROGRAM }, breakpoints: [] });
      const secondEnded = second.dc.waitForEvent('terminated');
      await second.dc.continueRequest({ threadId: 1 });
      await secondEnded;
      assert.match(second.output(), /total\t15/);
    });
  });
}
