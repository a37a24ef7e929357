// Unit tests of LuaSession's state machine and commands, with sinon fakes for the Lua link.
import * as assert from 'node:assert/strict';
import { LuaSession } from '../../src/session/luaSession';
import { SessionError } from '../../src/session/errors';
import { canTransition } from '../../src/session/state';
import { DEFAULT_SETTINGS, SessionSettings, StopInfo } from '../../src/session/types';
import { FakeConnection, fakeConnector, frame, ourRuntime } from './fakes';
import { RequestTimeoutError } from '../../src/protocol';

const settings: SessionSettings = { ...DEFAULT_SETTINGS, cwd: '/game' };
const FILES = ['/game/main.lua', '/game/a/util.lua', '/game/b/util.lua'];

function session(extra: Partial<SessionSettings> = {}): LuaSession {
  return new LuaSession({ ...settings, ...extra }, FILES);
}

async function rejectsWith(promise: Promise<unknown> | (() => unknown), code: string) {
  await assert.rejects(
    async () => (typeof promise === 'function' ? promise() : promise),
    (e) => {
      assert.ok(e instanceof SessionError, `expected a SessionError, got ${String(e)}`);
      assert.equal(e.code, code);
      return true;
    },
  );
}

function nextStop(s: LuaSession): Promise<StopInfo> {
  return new Promise((resolve) => s.once('stopped', resolve));
}

describe('session/LuaSession', () => {
  it('allows only the transitions of the state table', () => {
    assert.ok(canTransition('Idle', 'Starting'));
    assert.ok(canTransition('Running', 'Stopped'));
    assert.ok(canTransition('Stopped', 'Running'));
    assert.ok(!canTransition('Idle', 'Running'));
    assert.ok(!canTransition('Terminated', 'Starting'));
    assert.ok(!canTransition('Terminating', 'Running'));
  });

  it('goes Idle → Starting → Running, handshaking and sending breakpoints first', async () => {
    const s = session();
    const states: string[] = [];
    s.on('state', (c) => states.push(`${c.from}>${c.to}`));
    await s.setBreakpoints('/game/main.lua', [{ line: 3 }]);
    const conn = new FakeConnection({
      ...ourRuntime(['configurationDone', 'exceptions', 'breakpointResults']),
      setBreakPoint: () => ({ results: [{ line: 3, verified: true }] }),
    });
    await s.start(fakeConnector([conn]));
    assert.deepEqual(states, ['Idle>Starting', 'Starting>Running']);
    assert.deepEqual(conn.sent, [
      'initSuccess',
      'setBreakPoint',
      'setExceptionBreakpoints',
      'configurationDone',
    ]);
    const init = conn.infoOf('initSuccess') as Record<string, string>;
    assert.equal(init.waitConfigurationDone, 'true');
    assert.equal(init.stopOnEntry, 'false');
    assert.deepEqual(conn.infoOf('setBreakPoint'), {
      path: '/game/main.lua',
      bks: [{ verified: true, type: 2, line: 3 }],
      notifyBound: true,
    });
    assert.equal(s.breakpoints[0].verified, true);
  });

  it('sends exception filter conditions to a runtime that tests them', async () => {
    const s = session();
    const set = await s.setExceptionFilters([
      { filter: 'uncaught' },
      { filter: 'caught', condition: 'index' },
      { filter: 'caught', condition: 'nil' },
      { filter: 'assert', condition: 'ignored: assert is also on without one' },
      { filter: 'assert' },
    ]);
    assert.ok(set.every((r) => r.verified));
    const conn = new FakeConnection(ourRuntime(['exceptions', 'exceptionConditions']));
    await s.start(fakeConnector([conn]));
    assert.deepEqual(conn.infoOf('setExceptionBreakpoints'), {
      filters: ['uncaught', 'caught', 'assert'],
      conditions: { caught: ['index', 'nil'] },
    });
  });

  it('leaves a conditional exception filter off, and says why, with a runtime without conditions', async () => {
    const s = session();
    const warnings: string[] = [];
    s.on('warning', (text) => warnings.push(text));
    const shown: string[] = [];
    s.on('output', (e) => shown.push(e.text));
    await s.setExceptionFilters([{ filter: 'uncaught' }, { filter: 'caught', condition: 'x' }]);
    const conn = new FakeConnection(ourRuntime(['exceptions']));
    await s.start(fakeConnector([conn]));
    assert.deepEqual(conn.infoOf('setExceptionBreakpoints'), { filters: ['uncaught'] });
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /cannot test an exception filter's condition/);
    assert.match(shown.join(''), /cannot test/);
    // Set again while connected: the answer says so for that filter.
    const results = await s.setExceptionFilters([
      { filter: 'assert', condition: 'y' },
      { filter: 'uncaught' },
    ]);
    assert.deepEqual(
      results.map((r) => r.verified),
      [false, true],
    );
    assert.equal(warnings.length, 2, 'said again for the new list');
  });

  it("speaks upstream's dialect: no extensions, every sent breakpoint verified", async () => {
    const s = session();
    await s.setBreakpoints('/game/main.lua', [{ line: 3 }, { line: 5, hitCondition: '2' }]);
    await s.setExceptionFilters([{ filter: 'uncaught' }, { filter: 'caught' }]);
    const conn = new FakeConnection({
      initSuccess: () => ({ debuggerVer: '3.3.1', UseHookLib: false, isNeedB64EncodeStr: true }),
    });
    await s.start(fakeConnector([conn]));
    assert.deepEqual(conn.sent, ['initSuccess', 'setBreakPoint']);
    assert.deepEqual((conn.infoOf('setBreakPoint') as { bks: unknown[] }).bks, [
      { verified: true, type: 2, line: 3 },
    ]);
    const [plain, counted] = s.breakpoints;
    assert.equal(plain.verified, true);
    assert.equal(counted.verified, false);
    assert.match(counted.message ?? '', /hit conditions/);
    assert.equal(s.runtime, 'LuaPanda 3.3.1');
  });

  it('a stop makes it Stopped with mapped frames, a reason and the hit breakpoint ids', async () => {
    const s = session();
    const [bp] = await s.setBreakpoints('/game/b/util.lua', [{ line: 7 }]);
    const conn = new FakeConnection(ourRuntime([]));
    await s.start(fakeConnector([conn]));
    const stopped = nextStop(s);
    conn.stop('stopOnBreakpoint', [
      frame(7, 2, { file: 'util.lua', oPath: 'b/util.lua' }),
      frame(20, 3, { name: 'main chunk' }),
    ]);
    const stop = await stopped;
    assert.equal(s.state, 'Stopped');
    assert.equal(stop.reason, 'breakpoint');
    assert.deepEqual(stop.hitBreakpointIds, [bp.id]);
    assert.equal(stop.frames[0].path, '/game/b/util.lua');
    assert.equal(stop.frames[0].name, 'util.lua', 'the constant upstream name is replaced');
    assert.equal(stop.frames[1].name, 'main chunk');
    assert.equal(stop.threadId, 1);
    assert.match(stop.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('skips a hit in a same-name file that has no breakpoint (fake hit), shows the real one', async () => {
    const s = session();
    await s.setBreakpoints('/game/a/util.lua', [{ line: 7 }]);
    const conn = new FakeConnection(ourRuntime([]));
    await s.start(fakeConnector([conn]));
    let stops = 0;
    s.on('stopped', () => stops++);
    conn.stop('stopOnBreakpoint', [frame(7, 2, { file: 'util.lua', oPath: 'b/util.lua' })]);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(stops, 0);
    assert.equal(s.state, 'Running');
    assert.deepEqual(conn.infoOf('continue'), {
      isFakeHit: 'true',
      fakeBKPath: 'b/util.lua',
      fakeBKLine: '7',
    });
    conn.stop('stopOnBreakpoint', [frame(7, 2, { file: 'util.lua', oPath: 'a/util.lua' })]);
    assert.equal(stops, 1);
    assert.equal(s.stop?.frames[0].path, '/game/a/util.lua');
  });

  it('refuses commands the state does not allow, with codes', async () => {
    const s = session();
    await rejectsWith(s.continue(), 'not-stopped');
    const conn = new FakeConnection(ourRuntime([]));
    await s.start(fakeConnector([conn]));
    await rejectsWith(s.stepOver(), 'not-stopped');
    await rejectsWith(s.evaluate('x'), 'not-stopped');
    await rejectsWith(() => s.scopes(1), 'not-stopped');
    conn.stop('stopOnEntry', [frame(1)]);
    await rejectsWith(s.pause(), 'not-running');
    await rejectsWith(() => s.stackTrace(99), 'unknown-thread');
    await rejectsWith(() => s.scopes(12345), 'unknown-frame');
    await rejectsWith(s.getVariables(12345), 'invalid-reference');
  });

  it('continue leaves Stopped before the reply and invalidates every handle', async () => {
    const s = session();
    const conn = new FakeConnection({
      ...ourRuntime([]),
      getVariable: () => [{ name: 't', type: 'table', value: 't', variablesReference: 5 }],
    });
    await s.start(fakeConnector([conn]));
    conn.stop('stopOnBreakpoint', [frame(3)]);
    const [locals] = s.scopes(s.stop!.frames[0].id);
    const [t] = await s.getVariables(locals.variablesReference);
    assert.ok(t.variablesReference > 0);
    let stateWhenSent = '';
    conn.replies.continue = () => {
      stateWhenSent = s.state;
      return [];
    };
    const continued = new Promise((resolve) => s.once('continued', resolve));
    await s.continue(1);
    await continued;
    assert.equal(stateWhenSent, 'Running');
    assert.equal(s.stop, undefined);
    conn.stop('stopOnStep', [frame(4)]);
    await rejectsWith(s.getVariables(t.variablesReference), 'invalid-reference');
    await rejectsWith(s.getVariables(locals.variablesReference), 'invalid-reference');
  });

  it('steps send the protocol commands', async () => {
    const s = session();
    const conn = new FakeConnection(ourRuntime([]));
    await s.start(fakeConnector([conn]));
    for (const [method, cmd] of [
      ['stepOver', 'stopOnStep'],
      ['stepIn', 'stopOnStepIn'],
      ['stepOut', 'stopOnStepOut'],
    ] as const) {
      conn.stop('stopOnBreakpoint', [frame(1)]);
      await s[method]();
      assert.equal(conn.sent.at(-1), cmd);
    }
  });

  it('pauses with the pause command when the runtime has it', async () => {
    const s = session();
    const conn = new FakeConnection(ourRuntime(['pause']));
    await s.start(fakeConnector([conn]));
    await s.pause();
    assert.equal(conn.sent.at(-1), 'pause');
    const stopped = nextStop(s);
    conn.stop('stopOnPause', [frame(9)]);
    assert.equal((await stopped).reason, 'pause');
  });

  it('says why a running game may answer a pause late, and the fix, when it does not answer', async () => {
    const s = session();
    const conn = new FakeConnection({
      ...ourRuntime(['pause']),
      pause: () => {
        throw new RequestTimeoutError('pause', 10_000);
      },
    });
    await s.start(fakeConnector([conn]));
    await assert.rejects(s.pause(), (e) => {
      assert.ok(e instanceof SessionError && e.code === 'request-timeout', String(e));
      assert.match(e.message, /did not answer the pause in time/);
      assert.match(e.message, /native accelerator.*tick\(\) once per frame/);
      return true;
    });
  });

  it('emulates pause with a step-in for upstream, and reports it as a pause', async () => {
    const s = session();
    const conn = new FakeConnection({ initSuccess: () => ({ debuggerVer: '3.3.1' }) });
    await s.start(fakeConnector([conn]));
    await s.pause();
    assert.equal(conn.sent.at(-1), 'stopOnStepIn');
    const stopped = nextStop(s);
    conn.stop('stopOnStepIn', [frame(9)]);
    assert.equal((await stopped).reason, 'pause');
  });

  it('says that a program died in the handshake when nothing else connects in time', async () => {
    const dying = new FakeConnection({
      initSuccess: () => {
        dying.drop();
        throw Object.assign(new Error('The connection to the Lua side is closed.'), {
          code: 'connection-closed',
        });
      },
    });
    const connector = fakeConnector([dying]);
    connector.nextConnection
      .onSecondCall()
      .rejects(
        new SessionError('no-connection', 'No Lua program connected on port 8818 within 50 ms.'),
      );
    const s = session();
    await assert.rejects(s.start(connector, { connectTimeoutMs: 5_000 }), (e) => {
      assert.ok(e instanceof SessionError);
      assert.equal(e.code, 'handshake-failed');
      assert.match(e.message, /connected but did not complete the LuaPanda handshake/);
      assert.match(e.message, /No Lua program connected on port 8818/);
      return true;
    });
    assert.equal(s.state, 'Terminated');
  });

  it("uses up upstream's post-handshake read with a frame it ignores, if nothing else goes", async () => {
    const idle = new FakeConnection({ initSuccess: () => ({}) });
    await session().start(fakeConnector([idle]));
    assert.deepEqual(idle.sent, ['initSuccess']);
    assert.deepEqual(
      idle.notify.getCalls().map((c) => c.args[0]),
      ['configurationDone'],
      'an id-less frame upstream ignores',
    );
    // With breakpoints to send, the first of them is that frame; our runtime gets a request.
    const withBreakpoints = session();
    await withBreakpoints.setBreakpoints('/game/main.lua', [{ line: 3 }]);
    const busy = new FakeConnection({ initSuccess: () => ({}) });
    await withBreakpoints.start(fakeConnector([busy]));
    assert.deepEqual(busy.sent, ['initSuccess', 'setBreakPoint']);
    assert.equal(busy.notify.callCount, 0);
    const ours = new FakeConnection(ourRuntime(['configurationDone']));
    await session().start(fakeConnector([ours]));
    assert.equal(ours.notify.callCount, 0);
  });

  it("tidies upstream's lists: stable field order, no interpreter slots among locals", async () => {
    const variable = (name: string, ref = 0) => ({
      name,
      type: 'number',
      value: '1',
      variablesReference: ref,
    });
    const s = session();
    const conn = new FakeConnection({
      initSuccess: () => ({}),
      getVariable: (info) =>
        (info as { varRef: string }).varRef === '10000'
          ? [variable('n'), variable('(temporary)'), variable('(for state)'), variable('t', 7)]
          : [
              variable('"b"'),
              variable('_Metatable_', 8),
              variable('2'),
              variable('"a"'),
              variable('1'),
            ],
    });
    await s.start(fakeConnector([conn]));
    conn.stop('stopOnBreakpoint', [frame(1)]);
    const locals = await s.getVariables(s.scopes(s.stop!.frames[0].id)[0].variablesReference);
    assert.deepEqual(
      locals.map((v) => v.name),
      ['n', 't'],
    );
    const fields = await s.getVariables(locals[1].variablesReference);
    assert.deepEqual(
      fields.map((v) => v.name),
      ['[1]', '[2]', 'a', 'b', '_Metatable_'],
    );
  });

  it('pages variables itself for upstream and through the runtime when it pages', async () => {
    const many = Array.from({ length: 10 }, (_, i) => ({
      name: String(i + 1),
      type: 'number',
      value: String(i),
      variablesReference: 0,
    }));
    const upstream = session();
    const c1 = new FakeConnection({ initSuccess: () => ({}), getVariable: () => many });
    await upstream.start(fakeConnector([c1]));
    c1.stop('stopOnBreakpoint', [frame(1)]);
    const ref = upstream.scopes(upstream.stop!.frames[0].id)[0].variablesReference;
    const page = await upstream.getVariables(ref, { start: 4, count: 3 });
    assert.deepEqual(
      page.map((v) => v.name),
      ['5', '6', '7'],
    );
    await upstream.getVariables(ref, { start: 0, count: 2 });
    assert.equal(c1.sent.filter((c) => c === 'getVariable').length, 1, 'fetched once per stop');

    const paging = session({ pagingLimit: 100 });
    const c2 = new FakeConnection({
      ...ourRuntime(['paging']),
      getVariable: () => many.slice(0, 2),
    });
    await paging.start(fakeConnector([c2]));
    c2.stop('stopOnBreakpoint', [frame(1)]);
    const ref2 = paging.scopes(paging.stop!.frames[0].id)[0].variablesReference;
    await paging.getVariables(ref2, { start: 4, count: 2 });
    assert.deepEqual(c2.infoOf('getVariable'), {
      varRef: '10000',
      stackId: '2',
      start: 4,
      count: 2,
    });
  });

  it('reports evaluation failures and assignment refusals with codes', async () => {
    const s = session();
    const conn = new FakeConnection({
      ...ourRuntime([]),
      getWatchedVariable: () => [
        {
          name: 'x',
          type: 'string',
          value: 'attempt to index a nil value',
          variablesReference: 0,
          isSuccess: false,
        },
      ],
      runREPLExpression: () => [
        { name: 'Exp', type: 'number', value: '50', variablesReference: 0, isSuccess: true },
      ],
      getVariable: () => [{ name: 't', type: 'table', value: '{}', variablesReference: 3 }],
      setVariable: () => ({ success: false, tip: 'no such variable' }),
    });
    await s.start(fakeConnector([conn]));
    conn.stop('stopOnBreakpoint', [frame(1)]);
    await rejectsWith(s.evaluate('x.y'), 'evaluate-failed');
    assert.equal((await s.evaluate('n * 10', undefined, 'repl')).value, '50');
    const locals = s.scopes(s.stop!.frames[0].id)[0];
    await rejectsWith(s.setVariable(locals.variablesReference, 'nope', '1'), 'set-variable-failed');
    const [t] = await s.getVariables(locals.variablesReference);
    await rejectsWith(s.setVariable(t.variablesReference, 'field', '1'), 'not-supported');
  });

  it('a request that gets no answer fails with request-timeout', async () => {
    const s = session();
    const conn = new FakeConnection(ourRuntime([]));
    await s.start(fakeConnector([conn]));
    conn.stop('stopOnBreakpoint', [frame(1)]);
    conn.replies.getWatchedVariable = () => {
      throw Object.assign(new Error('no answer'), { code: 'request-timeout' });
    };
    await rejectsWith(s.evaluate('x'), 'request-timeout');
  });

  it('ends Terminated when the link drops, with breakpoints unbound again', async () => {
    const s = session();
    await s.setBreakpoints('/game/main.lua', [{ line: 1 }]);
    const conn = new FakeConnection(ourRuntime([]));
    const connector = fakeConnector([conn]);
    await s.start(connector);
    assert.equal(s.breakpoints[0].verified, true);
    const terminated = new Promise((resolve) => s.once('terminated', resolve));
    conn.drop();
    await terminated;
    assert.equal(s.state, 'Terminated');
    assert.equal(s.breakpoints[0].verified, false);
    assert.ok(connector.dispose.calledOnce);
  });

  it('with autoReconnect waits for the game again and re-sends everything', async () => {
    const s = session({ autoReconnect: true });
    await s.setBreakpoints('/game/main.lua', [{ line: 1 }]);
    const first = new FakeConnection(ourRuntime([]));
    const second = new FakeConnection(ourRuntime([]));
    await s.start(fakeConnector([first, second]));
    const states: string[] = [];
    const back = new Promise<void>((resolve) =>
      s.on('state', (c) => {
        states.push(c.to);
        if (c.to === 'Running') resolve();
      }),
    );
    first.drop();
    await back;
    assert.deepEqual(states, ['Starting', 'Running']);
    assert.deepEqual(second.sent, ['initSuccess', 'setBreakPoint']);
  });

  it('stopping an attached session detaches with stopRun', async () => {
    const s = session();
    const conn = new FakeConnection(ourRuntime([]));
    await s.start(fakeConnector([conn]));
    conn.stop('stopOnBreakpoint', [frame(1)]);
    const states: string[] = [];
    s.on('state', (c) => states.push(c.to));
    await s.stopSession();
    assert.deepEqual(states, ['Terminating', 'Terminated']);
    assert.equal(conn.sent.at(-1), 'stopRun');
    assert.ok(conn.closed);
    await s.stopSession();
    await rejectsWith(s.continue(), 'not-stopped');
  });

  it('asked to terminate an attached game, it detaches and says so', async () => {
    const s = session();
    const conn = new FakeConnection(ourRuntime([]));
    await s.start(fakeConnector([conn]));
    const reasons: string[] = [];
    s.on('terminated', (t) => reasons.push(t.reason));
    await s.stopSession({ terminateDebuggee: true });
    assert.equal(conn.sent.at(-1), 'stopRun');
    assert.deepEqual(reasons, [
      'Detached from the program (a program the debugger attached to is not ended by it).',
    ]);
  });

  it('a start that finds no program fails with the connector error and ends Terminated', async () => {
    const s = session();
    const connector = fakeConnector([]);
    connector.nextConnection.rejects(new SessionError('no-connection', 'nobody came'));
    await rejectsWith(s.start(connector), 'no-connection');
    assert.equal(s.state, 'Terminated');
    await rejectsWith(s.start(connector), 'invalid-state');
  });

  it('retries a link that dies before the handshake (a listening game that dropped it)', async () => {
    const s = session();
    const dead = new FakeConnection({
      initSuccess: () => {
        dead.drop();
        throw Object.assign(new Error('reset'), { code: 'connection-closed' });
      },
    });
    const good = new FakeConnection(ourRuntime([]));
    const connector = fakeConnector([dead, good]);
    await s.start(connector, { connectTimeoutMs: 5_000 });
    assert.equal(s.state, 'Running');
    assert.equal(connector.nextConnection.callCount, 2);
  });

  it('lists coroutines as threads and gives each its part of the stack', async () => {
    const s = session();
    const conn = new FakeConnection(ourRuntime(['coroutines', 'functionNames']));
    await s.start(fakeConnector([conn]));
    conn.stop('stopOnBreakpoint', [
      frame(5, 2, { name: 'worker', coroutine: 'thread: 0x1' }),
      frame(9, 4, { name: 'main chunk', coroutine: 'main' }),
    ]);
    const stop = s.stop!;
    assert.notEqual(stop.threadId, 1);
    assert.deepEqual(
      s.threads().map((t) => t.id),
      [1, stop.threadId],
    );
    assert.equal(s.stackTrace(stop.threadId).frames.length, 2);
    assert.deepEqual(
      s.stackTrace(1).frames.map((f) => f.name),
      ['main chunk'],
    );
  });

  it('emits output as events and turns logpoint lines into console output', async () => {
    const s = session();
    const shown: string[][] = [];
    s.on('output', (e) => shown.push([e.category, e.text]));
    const conn = new FakeConnection(ourRuntime([]));
    await s.start(fakeConnector([conn]));
    s.addOutput('stdout', 'hello\n');
    conn.emit('notification', { kind: 'log', cmd: 'debug_console', text: '[LogPoint Output]: x' });
    assert.deepEqual(shown, [
      ['stdout', 'hello\n'],
      ['console', '[LogPoint Output]: x\n'],
    ]);
  });

  it('does not show upstream runtime\'s "debugger init success" greeting', async () => {
    const s = session();
    const shown: string[] = [];
    s.on('output', (entry) => shown.push(entry.text));
    // Upstream's LuaPanda.lua says so right after the handshake (upstream dialect: no extensions).
    const conn = new FakeConnection({
      initSuccess: () => ({ debuggerVer: '3.3.1', UseHookLib: false, isNeedB64EncodeStr: true }),
    });
    await s.start(fakeConnector([conn]));
    conn.emit('notification', { kind: 'log', cmd: 'output', text: 'debugger init success' });
    conn.emit('notification', { kind: 'log', cmd: 'output', text: 'a line the game logged' });
    assert.deepEqual(shown, ['a line the game logged\n']);
  });
});
