// The `trace` launch attribute with the out-of-process adapter and DebugClient, launching a real
// Lua program: every frame crossing the wire shows in the debug console both ways (each request's
// reply among them, and the runtime's own account of each frame it received), with the DAP
// traffic, the session's state changes and the runtime's hook modes.
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { LuaDebugSession } from '../../src/adapter';
import { luaInterpreters } from '../harness/interpreters';
import { type WireFrame, assertRepliesAndStopTraced } from '../harness/wireTrace';
import { DapTest, TIMEOUT_MS, fixture } from './dapHarness';
import { useDapTest } from './useDapTest';

/** The texts of the trace lines of `tag` in the debug console, in order. */
function traced(t: DapTest, tag: string): string[] {
  const prefix = `[${tag}] `;
  return t.outputs
    .filter((o) => o.category === 'console' && o.text.startsWith(prefix))
    .map((o) => o.text.slice(prefix.length).replace(/\n$/, ''));
}

for (const lua of luaInterpreters()) {
  describe(`adapter trace attribute on ${lua.command}`, function () {
    this.timeout(30_000);
    const t = useDapTest();

    it('shows every frame crossing the wire, DAP traffic, state changes and the runtime’s lines', async () => {
      const file = fixture('breakpoints.lua');
      await t.launch(
        lua.command,
        file,
        { trace: true },
        { breakpoints: { [file]: [{ line: 10 }] } },
      );
      const stop = await t.stoppedAt('breakpoint', file, 10);
      await t.dc.continueRequest({ threadId: stop.event.threadId ?? 1 });
      await t.terminated;

      const sent = traced(t, 'wire.send').map((text) => JSON.parse(text) as WireFrame);
      const received = traced(t, 'wire.receive').map((text) => JSON.parse(text) as WireFrame);
      assert.equal(sent[0].cmd, 'initSuccess', 'the handshake is the first frame');
      assert.equal(sent[0].info?.trace, 'true', 'the runtime is asked for its trace lines');
      for (const cmd of [
        'setBreakPoint',
        'setExceptionBreakpoints',
        'configurationDone',
        'continue',
      ]) {
        assert.ok(
          sent.some((f) => f.cmd === cmd),
          `${cmd} sent: ${sent.map((f) => f.cmd).join(', ')}`,
        );
      }
      // Every request's reply came back over the wire and was traced.
      assertRepliesAndStopTraced(sent, received);
      const initReply = received.find((f) => f.cmd === 'initSuccess');
      assert.ok((initReply?.info?.features as string[]).includes('trace'), 'feature advertised');

      // The runtime's own account: one line per frame it received, after the handshake's.
      const runtime = traced(t, 'runtime');
      const commands = runtime
        .filter((line) => line.startsWith('command '))
        .map((line) => line.split(' ')[1]);
      assert.deepEqual(
        commands,
        sent.slice(1).map((f) => f.cmd),
        'the runtime received exactly the frames traced as sent',
      );
      assert.ok(
        runtime.some((line) => /^hook mode: call hooks/.test(line)),
        `a hook mode line: ${runtime.join(' | ')}`,
      );

      const states = traced(t, 'session.state');
      for (const to of ['Running', 'Stopped', 'Terminated']) {
        assert.ok(
          states.some((line) => line.includes(`→ ${to}`)),
          `→ ${to}: ${states.join(' | ')}`,
        );
      }
      const dap = traced(t, 'dap');
      assert.ok(
        dap.some((line) => line.startsWith('trace on')),
        'the trace names its start',
      );
      assert.ok(dap.some((line) => line.startsWith('→ ') && line.includes('"command":"continue"')));
      assert.ok(dap.some((line) => line.startsWith('← ') && line.includes('"event":"stopped"')));
      assert.ok(
        !dap.some((line) => line.includes('[wire.')),
        'trace lines are not traced themselves',
      );
    });

    it('traces only the tags asked for, and a bad tag fails the launch with its name', async () => {
      const file = fixture('breakpoints.lua');
      await t.launch(lua.command, file, { trace: ['session.state'] });
      await t.terminated;
      assert.ok(traced(t, 'session.state').length > 0);
      for (const tag of ['wire.send', 'wire.receive', 'dap', 'runtime']) {
        assert.deepEqual(traced(t, tag), [], tag);
      }
      const other = await new DapTest().open();
      try {
        await assert.rejects(
          other.launch(lua.command, file, { trace: 'wires' }),
          /trace.*unknown trace tag "wires"/,
        );
      } finally {
        await other.close();
      }
    });
  });
}

const first = luaInterpreters()[0];

(first ? describe : describe.skip)(
  'adapter trace sink (in process, as VS Code runs it)',
  function () {
    this.timeout(30_000);

    it('sends the trace to the given sink, not to the debug console', async () => {
      const lines: string[] = [];
      const adapter = new LuaDebugSession({
        traceSink: (tag, text) => lines.push(`[${tag}] ${text}`),
      });
      const messages: DebugProtocol.ProtocolMessage[] = [];
      const pending = new Map<number, (r: DebugProtocol.Response) => void>();
      adapter.onDidSendMessage((raw) => {
        const message = raw as DebugProtocol.ProtocolMessage;
        messages.push(message);
        if (message.type === 'response') {
          const response = message as DebugProtocol.Response;
          pending.get(response.request_seq)?.(response);
        }
      });
      let seq = 1;
      const request = (command: string, args: object = {}) =>
        new Promise<DebugProtocol.Response>((resolve, reject) => {
          const id = seq++;
          const timer = setTimeout(() => reject(new Error(`no ${command} response`)), TIMEOUT_MS);
          pending.set(id, (r) => {
            clearTimeout(timer);
            resolve(r);
          });
          adapter.handleMessage({
            seq: id,
            type: 'request',
            command,
            arguments: args,
          } as DebugProtocol.Request);
        });
      const file = fixture('breakpoints.lua');
      try {
        await request('initialize', { adapterID: 'luapanda', pathFormat: 'path' });
        const launched = request('launch', {
          program: file,
          cwd: path.dirname(file),
          luaPath: first.command,
          trace: ['wire', 'session.state'],
        });
        const deadline = Date.now() + TIMEOUT_MS;
        while (!messages.some((m) => (m as DebugProtocol.Event).event === 'initialized')) {
          if (Date.now() > deadline) throw new Error('no initialized event');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await request('configurationDone');
        assert.ok((await launched).success);
        // The program runs to its end: the adapter says so with `terminated`.
        while (!messages.some((m) => (m as DebugProtocol.Event).event === 'terminated')) {
          if (Date.now() > deadline) throw new Error('the program did not end');
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      } finally {
        adapter.dispose();
      }
      assert.ok(
        lines.some((l) => l.startsWith('[wire.send] {"callbackId"') && l.includes('"initSuccess"')),
      );
      assert.ok(lines.some((l) => l.startsWith('[wire.receive] ')));
      assert.ok(lines.some((l) => l.startsWith('[session.state] ') && l.includes('→ Terminated')));
      assert.ok(!lines.some((l) => l.startsWith('[dap]')), 'only the tags asked for');
      const consoleText = messages
        .filter((m) => (m as DebugProtocol.Event).event === 'output')
        .map((m) => (m as DebugProtocol.OutputEvent).body.output)
        .join('');
      assert.doesNotMatch(consoleText, /\[wire\./, 'nothing of the trace in the debug console');
    });
  },
);
