/**
 * The VS Code debug channel with a stubbed `vscode.debug`: sessions are seen through the tracker
 * factory, js-debug-style child sessions fold into their root, thread requests go to the child
 * that stopped last, and a launch failure's message reaches the agent.
 */
import { GAME_KEY } from '../../src/adapter/gameHandoff';
import { Uri, resetVscode, sessionTerminated, trackerFactories, vscode } from './vscodeStub';
import * as assert from 'node:assert/strict';
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as sinon from 'sinon';
import { VscodeDebugChannel } from '../../src/extension/agentTools/vscodeChannel';

interface FakeSession {
  id: string;
  name: string;
  type: string;
  configuration: Record<string, unknown>;
  parentSession?: FakeSession;
  customRequest: sinon.SinonStub;
}

interface Tracker {
  onWillReceiveMessage(message: unknown): void;
  onDidSendMessage(message: unknown): void;
}

function session(
  id: string,
  configuration: Record<string, unknown> = {},
  parent?: FakeSession,
): FakeSession {
  return {
    id,
    name: id,
    type: parent ? 'pwa-node' : 'node',
    configuration,
    parentSession: parent,
    customRequest: sinon.stub().resolves({ from: id }),
  };
}

function track(s: FakeSession): Tracker {
  const entry = trackerFactories.find((f) => f.type === '*');
  assert.ok(entry, 'a tracker factory for every debug type');
  return entry.factory.createDebugAdapterTracker(s) as Tracker;
}

const stopped = (threadId: number): DebugProtocol.StoppedEvent => ({
  seq: 1,
  type: 'event',
  event: 'stopped',
  body: { reason: 'breakpoint', threadId },
});

describe('extension: the debug channel over VS Code', () => {
  let channel: VscodeDebugChannel;
  const events: [string, string][] = [];

  beforeEach(() => {
    resetVscode();
    vscode.workspace.workspaceFolders = [{ uri: Uri.file('/games/rpg') }];
    channel = new VscodeDebugChannel();
    events.length = 0;
    channel.onEvent((s, e) => void events.push([s.id, e.event]));
  });
  afterEach(() => channel.dispose());

  it('folds child sessions into their root; thread requests go to the child that stopped', async () => {
    const started: string[] = [];
    const ended: string[] = [];
    channel.onSessionStarted((s) => void started.push(s.id));
    channel.onSessionEnded((s) => void ended.push(s.id));
    const root = session('root');
    const child = session('child', {}, root);
    const rootTracker = track(root);
    const childTracker = track(child);
    assert.deepEqual(started, ['root'], 'one agent-visible session');
    assert.deepEqual(
      channel.sessions().map((s) => s.id),
      ['root'],
    );

    const port = channel.sessions()[0];
    assert.deepEqual(
      await port.customRequest('threads'),
      { from: 'child' },
      'before a stop: the newest child',
    );
    childTracker.onDidSendMessage(stopped(7));
    assert.deepEqual(events, [['root', 'stopped']]);
    assert.deepEqual(await port.customRequest('stackTrace', { threadId: 7 }), { from: 'child' });
    assert.deepEqual(
      await port.customRequest('disconnect'),
      { from: 'root' },
      'session requests go to the root',
    );

    childTracker.onDidSendMessage({ seq: 2, type: 'event', event: 'terminated' });
    sessionTerminated.fire(child);
    assert.deepEqual(ended, [], "a child's end is not the session's end");
    rootTracker.onDidSendMessage({ seq: 3, type: 'event', event: 'terminated' });
    sessionTerminated.fire(root);
    assert.deepEqual(ended, ['root']);
    assert.deepEqual(events.at(-1), ['root', 'terminated']);
    assert.deepEqual(channel.sessions(), []);
  });

  it('keeps a further game on an attach port, opened as a child session, a session of its own', async () => {
    const started: string[] = [];
    channel.onSessionStarted((s) => void started.push(s.id));
    const root = session('attach');
    const game = session('client', { [GAME_KEY]: 'game-1' }, root);
    track(root);
    const gameTracker = track(game);
    assert.deepEqual(started, ['attach', 'client']);
    gameTracker.onDidSendMessage(stopped(1));
    assert.deepEqual(events, [['client', 'stopped']]);
    const port = channel.sessions().find((s) => s.id === 'client');
    assert.ok(port);
    assert.deepEqual(await port.customRequest('threads'), { from: 'client' });
    assert.equal(port.parentId, 'attach', 'the attach session it came in on');
    assert.equal(channel.sessions().find((s) => s.id === 'attach')?.parentId, undefined);
  });

  it('starts a configuration and returns the session VS Code created for it', async () => {
    vscode.debug.startDebugging.callsFake(
      async (_folder: unknown, config: Record<string, unknown>) => {
        track(session('s1', config));
        return true;
      },
    );
    const port = await channel.startDebugging(
      { name: 'Lua: main', type: 'luapanda', request: 'launch' },
      { noDebug: true },
    );
    assert.equal(port.id, 's1');
    const [folder, config, options] = vscode.debug.startDebugging.firstCall.args;
    assert.equal((folder as { uri: Uri }).uri.fsPath, '/games/rpg');
    assert.equal((config as { name: string }).name, 'Lua: main');
    assert.deepEqual(options, { noDebug: true });
  });

  it("a failed start carries the adapter's message", async () => {
    vscode.debug.startDebugging.callsFake(
      async (_folder: unknown, config: Record<string, unknown>) => {
        const tracker = track(session('s2', config));
        tracker.onWillReceiveMessage({ seq: 5, type: 'request', command: 'launch', arguments: {} });
        tracker.onDidSendMessage({
          seq: 6,
          type: 'response',
          request_seq: 5,
          command: 'launch',
          success: false,
          message: 'Set "program" to the Lua file to run.',
        });
        return false;
      },
    );
    await assert.rejects(
      channel.startDebugging(
        { name: 'bad', type: 'luapanda', request: 'launch' },
        { noDebug: false },
      ),
      /Set "program" to the Lua file to run\./,
    );
  });

  it("knows each session's exception filters, and applies an agent's at configurationDone", async () => {
    let tracker: Tracker | undefined;
    let created: FakeSession | undefined;
    vscode.debug.startDebugging.callsFake(
      async (_folder: unknown, config: Record<string, unknown>) => {
        created = session('s4', config);
        tracker = track(created);
        return true;
      },
    );
    const port = await channel.startDebugging(
      { name: 'Lua: main', type: 'luapanda', request: 'launch' },
      { noDebug: false, exceptionFilters: ['caught'] },
    );
    assert.ok(tracker && created);
    tracker.onWillReceiveMessage({ seq: 1, type: 'request', command: 'initialize', arguments: {} });
    tracker.onDidSendMessage({
      seq: 2,
      type: 'response',
      request_seq: 1,
      command: 'initialize',
      success: true,
      body: { exceptionBreakpointFilters: [{ filter: 'uncaught', label: 'U', default: true }] },
    });
    assert.deepEqual(
      port.exceptionFilters.offered?.map((f) => f.filter),
      ['uncaught'],
    );
    // What the Breakpoints view sends, then configurationDone: the agent's filters follow.
    tracker.onWillReceiveMessage({
      seq: 3,
      type: 'request',
      command: 'setExceptionBreakpoints',
      arguments: { filters: ['uncaught'] },
    });
    assert.deepEqual(port.exceptionFilters.active, ['uncaught']);
    assert.equal(created.customRequest.callCount, 0);
    tracker.onWillReceiveMessage({ seq: 4, type: 'request', command: 'configurationDone' });
    assert.deepEqual(created.customRequest.firstCall.args, [
      'setExceptionBreakpoints',
      { filters: ['caught'] },
    ]);
    tracker.onWillReceiveMessage({
      seq: 5,
      type: 'request',
      command: 'setExceptionBreakpoints',
      arguments: { filters: ['caught'] },
    });
    assert.deepEqual(port.exceptionFilters.active, ['caught']);
  });

  it("gives the games of an attach session the agent's exception filters too", async () => {
    let attach: FakeSession | undefined;
    vscode.debug.startDebugging.callsFake(
      async (_folder: unknown, config: Record<string, unknown>) => {
        attach = session('games', config);
        track(attach);
        return true;
      },
    );
    await channel.startDebugging(
      { name: 'games', type: 'luapanda', request: 'attach' },
      { noDebug: false, exceptionFilters: ['assert'] },
    );
    assert.ok(attach);
    // The adapter opens a game's session under it (the start marker is not copied).
    const game = session('server', { [GAME_KEY]: 'game-1' }, attach);
    const gameTracker = track(game);
    gameTracker.onWillReceiveMessage({ seq: 1, type: 'request', command: 'configurationDone' });
    assert.deepEqual(game.customRequest.firstCall.args, [
      'setExceptionBreakpoints',
      { filters: ['assert'] },
    ]);
  });

  it('feeds setBreakpoints answers to the breakpoints, for hit ids', () => {
    const s = session('s3');
    const tracker = track(s);
    const spy = sinon.spy(channel.breakpoints, 'onSetBreakpoints');
    tracker.onWillReceiveMessage({
      seq: 9,
      type: 'request',
      command: 'setBreakpoints',
      arguments: { source: { path: '/games/rpg/a.lua' }, breakpoints: [{ line: 3 }] },
    });
    tracker.onDidSendMessage({
      seq: 10,
      type: 'response',
      request_seq: 9,
      command: 'setBreakpoints',
      success: true,
      body: { breakpoints: [{ id: 41, verified: true, line: 3 }] },
    });
    assert.equal(spy.callCount, 1);
    assert.equal(spy.firstCall.args[0], 's3');
  });
});
