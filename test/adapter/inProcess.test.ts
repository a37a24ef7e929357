// The adapter in process (handleMessage/onDidSendMessage, as VS Code's inline adapter and the MCP
// tools run it) and as a DAP server (`dap.js --server=PORT`), each with a real Lua program.
import { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { LuaDebugSession } from '../../src/adapter';
import { luaInterpreters } from '../harness/interpreters';
import { scenario } from '../harness/scenario';
import { ADAPTER, TIMEOUT_MS, assertProcessGone, fixture } from './dapHarness';

/** A minimal DAP client for an adapter object in this process. */
class InProcessClient {
  private seq = 1;
  private readonly pending = new Map<number, (response: DebugProtocol.Response) => void>();
  readonly events: DebugProtocol.Event[] = [];
  private readonly waiters = new Set<() => void>();

  constructor(private readonly adapter: LuaDebugSession) {
    adapter.onDidSendMessage((raw) => {
      const message = raw as DebugProtocol.ProtocolMessage;
      if (message.type === 'response') {
        const response = message as DebugProtocol.Response;
        this.pending.get(response.request_seq)?.(response);
        this.pending.delete(response.request_seq);
      } else if (message.type === 'event') {
        this.events.push(message as DebugProtocol.Event);
        for (const wake of [...this.waiters]) wake();
      }
    });
  }

  request(command: string, args: object = {}): Promise<DebugProtocol.Response> {
    const seq = this.seq++;
    return new Promise((resolve) => {
      this.pending.set(seq, resolve);
      this.adapter.handleMessage({
        seq,
        type: 'request',
        command,
        arguments: args,
      } as DebugProtocol.Request);
    });
  }

  event(name: string): Promise<DebugProtocol.Event> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no '${name}' event`)), TIMEOUT_MS);
      const check = () => {
        const found = this.events.find((e) => e.event === name);
        if (found) {
          clearTimeout(timer);
          this.waiters.delete(check);
          resolve(found);
        }
      };
      this.waiters.add(check);
      check();
    });
  }
}

const lua = luaInterpreters()[0];

/** The launched program's process id, from the adapter's DAP `process` event. */
async function launchedPid(client: InProcessClient): Promise<number> {
  const event = (await client.event('process')) as DebugProtocol.ProcessEvent;
  const pid = event.body.systemProcessId;
  assert.ok(pid !== undefined && pid > 0, 'the process event names the program');
  return pid;
}

describe(`adapter in process and as a server (${lua.command})`, function () {
  this.timeout(30_000);

  it('debugs a real program through handleMessage/onDidSendMessage', async () => {
    const adapter = new LuaDebugSession();
    const client = new InProcessClient(adapter);
    const file = fixture('breakpoints.lua');
    try {
      assert.ok(
        (await client.request('initialize', { adapterID: 'luapanda', pathFormat: 'path' })).success,
      );
      const launched = client.request('launch', {
        program: file,
        cwd: path.dirname(file),
        luaPath: lua.command,
      });
      await client.event('initialized');
      await client.request('setBreakpoints', {
        source: { path: file },
        breakpoints: [{ line: 8 }],
      });
      await client.request('configurationDone');
      assert.ok((await launched).success);
      const stopped = (await client.event('stopped')) as DebugProtocol.StoppedEvent;
      assert.equal(stopped.body.reason, 'breakpoint');
      const trace = (await client.request('stackTrace', {
        threadId: stopped.body.threadId,
      })) as DebugProtocol.StackTraceResponse;
      const top = trace.body.stackFrames[0];
      assert.equal(top.line, 8);
      const evaluated = (await client.request('evaluate', {
        expression: 'i * 100',
        frameId: top.id,
        context: 'watch',
      })) as DebugProtocol.EvaluateResponse;
      assert.equal(evaluated.body.result, '100');
      const pid = await launchedPid(client);
      assert.ok((await client.request('disconnect', { terminateDebuggee: true })).success);
      await client.event('terminated');
      await assertProcessGone(pid);
    } finally {
      adapter.dispose();
    }
  });

  it('disposing of the adapter ends the program it launched', async () => {
    const adapter = new LuaDebugSession();
    const client = new InProcessClient(adapter);
    const file = fixture('busyLoop.lua');
    await client.request('initialize', { adapterID: 'luapanda', pathFormat: 'path' });
    const launched = client.request('launch', {
      program: file,
      cwd: path.dirname(file),
      luaPath: lua.command,
    });
    await client.event('initialized');
    await client.request('configurationDone');
    assert.ok((await launched).success);
    const pid = await launchedPid(client);
    adapter.dispose();
    await client.event('terminated');
    await assertProcessGone(pid);
  });

  it('serves DAP on a socket with --server=PORT', async () => {
    const server = spawn(process.execPath, [ADAPTER, '--server=0'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let text = '';
        server.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
          const match = /listening on 127\.0\.0\.1:(\d+)/.exec(text);
          if (match) resolve(Number(match[1]));
        });
        server.once('exit', () => reject(new Error(`the server exited: ${text}`)));
      });
      const dc = new DebugClient('node', ADAPTER, 'luapanda');
      dc.defaultTimeout = TIMEOUT_MS;
      await dc.start(port);
      try {
        const recursion = scenario('recursion');
        const file = recursion.file('main.lua');
        const base = recursion.line('main.lua', 'base');
        const configured = dc.waitForEvent('initialized').then(async () => {
          await dc.setBreakpointsRequest({ source: { path: file }, breakpoints: [{ line: base }] });
          await dc.configurationDoneRequest();
        });
        const stopped = dc.waitForEvent('stopped');
        await dc.initializeRequest();
        await Promise.all([
          configured,
          dc.launchRequest(recursion.configuration('Launch main.lua', lua) as never),
        ]);
        assert.equal(((await stopped) as DebugProtocol.StoppedEvent).body.reason, 'breakpoint');
        const trace = await dc.stackTraceRequest({ threadId: 1 });
        assert.equal(trace.body.stackFrames[0].line, base);
        await dc.disconnectRequest({ terminateDebuggee: true });
      } finally {
        await dc.stop();
      }
    } finally {
      server.kill();
      await new Promise((resolve) =>
        server.exitCode !== null ? resolve(undefined) : server.once('exit', resolve),
      );
    }
  });
});
