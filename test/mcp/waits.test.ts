/**
 * Honest waits and set-up errors through the MCP tools, with the SDK's own client against headless
 * luapanda-mcp: a Lua side that never answers (a TypeScript fake over real TCP, and a Lua stand-in
 * for the runtime) cannot make a wait outlast the agent's timeout_seconds; an attach wait says
 * what it waits for and names connectionTimeout when it runs out; an interpreter without
 * luasocket is refused before the program runs; a program killed by a signal is named so.
 *
 * The debugger's request timeout is set far beyond the tests' life where a test shows that only
 * the agent's deadline ended a wait: had it not, the call would hang and the test time out.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT } from '../harness/luaProcess';
import { freePort } from '../adapter/dapHarness';
import { FakeRuntime } from './fakeRuntime';
import { HeadlessFixture, ToolCallResult, callTool, makeWorkspace } from './headlessFixture';

const lua = luaInterpreters().find((i) => i.command === 'lua5.4') ?? luaInterpreters()[0];
const SILENT_RUNTIME = path.join(REPO_ROOT, 'test', 'fixtures', 'peer', 'silentRuntime');
const ADAPTER_FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'adapter');
/** Longer than any test: a wait that ends did not end by this. */
const FOREVER_S = 3600;

interface Ports {
  silent: number;
  quickGiveUp: number;
  nobody: number;
  nobodyInTime: number;
}

async function workspace(ports: Ports, scratch: string): Promise<string> {
  const attach = (name: string, port: number, extra: object = {}) => ({
    type: 'luapanda',
    request: 'attach',
    name,
    connectionPort: port,
    ...extra,
  });
  const launch = (name: string, program: string, extra: object = {}) => ({
    type: 'luapanda',
    request: 'launch',
    name,
    program: path.join(ADAPTER_FIXTURES, program),
    cwd: ADAPTER_FIXTURES,
    luaPath: lua.command,
    ...extra,
  });
  const hidden = path.join(scratch, 'no-luasocket-here', '?.so');
  return makeWorkspace({}, [
    attach('silent game', ports.silent, { requestTimeout: FOREVER_S }),
    attach('game that gives up', ports.quickGiveUp, { requestTimeout: 0.3 }),
    attach('nobody comes', ports.nobody, { connectionTimeout: FOREVER_S }),
    attach('nobody in time', ports.nobodyInTime, { connectionTimeout: 0.5 }),
    launch('silent runtime', 'output.lua', {
      runtimePath: SILENT_RUNTIME,
      requestTimeout: FOREVER_S,
    }),
    launch('no luasocket', 'marksRun.lua', {
      args: [path.join(scratch, 'ran.txt')],
      env: {
        LUA_CPATH: hidden,
        LUA_CPATH_5_2: hidden,
        LUA_CPATH_5_3: hidden,
        LUA_CPATH_5_4: hidden,
      },
    }),
    launch('killed', 'killsItself.lua', { args: ['KILL'] }),
  ]);
}

describe('MCP waits and set-up errors', function () {
  this.timeout(60_000);
  let fixture: HeadlessFixture;
  let client: Client;
  let ports: Ports;
  let scratch: string;
  const runtimes: FakeRuntime[] = [];
  const call = (name: string, args: Record<string, unknown> = {}): Promise<ToolCallResult> =>
    callTool(client, name, args);

  beforeEach(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'luapanda-mcp-waits-'));
    ports = {
      silent: await freePort(),
      quickGiveUp: await freePort(),
      nobody: await freePort(),
      nobodyInTime: await freePort(),
    };
    fixture = await HeadlessFixture.start(await workspace(ports, scratch));
    client = await fixture.connect();
  });

  afterEach(async () => {
    for (const runtime of runtimes.splice(0)) runtime.close();
    await fixture.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** Starts `name` while a fake runtime attaches to `port`; resolves with the first stop. */
  async function startWithFake(name: string, port: number, options = {}) {
    const started = call('start_debugging', { configuration_name: name, timeout_seconds: 20 });
    const runtime = await FakeRuntime.connect(port, { stopOnEntry: true, ...options });
    runtimes.push(runtime);
    const result = await started;
    assert.equal(result.status, 'stopped', JSON.stringify(result));
    const stop = result.stop_event_data as { thread_id: number };
    return { runtime, threadId: stop.thread_id };
  }

  it('a step, a pause and a continue the Lua side never answers end at timeout_seconds', async () => {
    const { runtime, threadId } = await startWithFake('silent game', ports.silent);

    const step = await call('step_execution', {
      thread_id: threadId,
      step_type: 'over',
      timeout_seconds: 1,
    });
    assert.equal(step.status, 'timeout', JSON.stringify(step));
    assert.match(String(step.message), /did not answer 'next' within the 1 s allowed/);
    assert.match(String(step.message), /timeout_seconds/);
    assert.equal((await call('get_debug_state')).state, 'Running');

    const pause = await call('pause_debugging', { timeout_seconds: 1 });
    assert.equal(pause.status, 'timeout', JSON.stringify(pause));
    assert.match(String(pause.message), /did not answer 'pause'/);

    runtime.stop();
    const state = await call('pause_debugging', { timeout_seconds: 5 });
    assert.equal(state.status, 'stopped', JSON.stringify(state));
    const resumed = await call('continue_debugging', { thread_id: threadId, timeout_seconds: 2 });
    assert.equal(resumed.status, 'timeout', JSON.stringify(resumed));
    assert.match(String(resumed.message), /did not answer 'continue' within the 2 s allowed/);
    assert.deepEqual(
      runtime.received.filter((c) => ['stopOnStep', 'pause', 'continue'].includes(c)),
      ['stopOnStep', 'pause', 'continue'],
    );
    assert.equal((await call('stop_debugging')).status, 'success');
  });

  it('when the debugger gives up on the answer first, the wait goes on until a stop or the deadline', async () => {
    const { threadId } = await startWithFake('game that gives up', ports.quickGiveUp, {
      stopAfterMs: 800,
    });
    // Never answered (the debugger gives up after 0.3 s), but the program stops later anyway.
    const step = await call('step_execution', {
      thread_id: threadId,
      step_type: 'over',
      timeout_seconds: 20,
    });
    assert.equal(step.status, 'stopped', JSON.stringify(step));
    assert.equal((step.stop_event_data as { line: number | null }).line, 4);
  });

  it('an attach wait says what it waits for at the deadline, and names connectionTimeout when it runs out', async () => {
    const waiting = await call('start_debugging', {
      configuration_name: 'nobody comes',
      timeout_seconds: 1,
    });
    assert.equal(waiting.status, 'timeout', JSON.stringify(waiting));
    assert.match(
      String(waiting.message),
      new RegExp(`Waiting for the game on 127\\.0\\.0\\.1:${ports.nobody}`),
    );
    const state = await call('get_debug_state');
    const sessions = state.sessions as { busy_with?: string }[];
    assert.match(sessions[0].busy_with ?? '', /127\.0\.0\.1 only \(this machine\)/);
    assert.equal((await call('stop_debugging')).status, 'success');

    const failed = await call('start_debugging', {
      configuration_name: 'nobody in time',
      timeout_seconds: 20,
    });
    // The attach started; the session then ended waiting for the game.
    assert.equal(failed.code, 'session-ended', JSON.stringify(failed));
    assert.match(String(failed.message), /No game connected within 0\.5 s \(connectionTimeout\)/);
  });

  it('a launch whose runtime never confirms the start ends at timeout_seconds', async () => {
    const started = await call('start_debugging', {
      configuration_name: 'silent runtime',
      timeout_seconds: 1,
    });
    assert.equal(started.status, 'timeout', JSON.stringify(started));
    assert.match(String(started.message), /did not finish starting "silent runtime" within 1 s/);
    assert.equal((await call('stop_debugging')).status, 'success');
  });

  it('refuses an interpreter without luasocket before the program runs', async () => {
    const result = await call('start_debugging', { configuration_name: 'no luasocket' });
    assert.equal(result.code, 'start-failed', JSON.stringify(result));
    const message = String(result.message);
    assert.match(message, /cannot load luasocket/);
    assert.match(message, new RegExp(`interpreter ${lua.command} \\(`));
    assert.match(message, /apt-get install lua-socket/);
    assert.match(message, /"luaPath"/);
    assert.match(message, /LUA_CPATH/);
    assert.equal(fs.existsSync(path.join(scratch, 'ran.txt')), false, 'the program never ran');
  });

  it('names the signal that killed the program', async function () {
    if (process.platform !== 'linux') this.skip();
    const result = await call('start_debugging', { configuration_name: 'killed' });
    assert.equal(result.status, 'completed', JSON.stringify(result));
    assert.match(String(result.message), /The program was killed by signal SIGKILL\./);
    assert.doesNotMatch(String(result.message), /exit code/);
  });
});
