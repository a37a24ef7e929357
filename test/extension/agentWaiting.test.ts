/**
 * The "agent waiting" status bar item and context key follow the session monitor's waiting count
 * by its event, with a stubbed `vscode`: a real debug channel and monitor, a session seen through
 * the tracker factory, and the real interrupt command. Each check comes right after the change,
 * with no time passing, which only an event (not a poll) can satisfy.
 */
import {
  FakeStatusBarItem,
  registeredCommands,
  resetVscode,
  trackerFactories,
  vscode,
} from './vscodeStub';
import * as assert from 'node:assert/strict';
import * as os from 'node:os';
import type * as vscodeTypes from 'vscode';
import { SessionMonitor } from '../../src/mcp/sessionMonitor';
import { showAgentWaiting } from '../../src/extension/mcpServer/agentWaiting';
import { registerMcpServerCommands } from '../../src/extension/mcpServer/mcpServerCommands';
import {
  CONTEXT_KEYS,
  COMMANDS,
  ContextKeys,
  StatusBar,
} from '../../src/extension/mcpServer/panel';
import { McpServerManager } from '../../src/extension/mcpServer/serverManager';
import { VscodeDebugChannel } from '../../src/extension/agentTools/vscodeChannel';

interface Tracker {
  onDidSendMessage(message: unknown): void;
}

/** A debug session as VS Code shows it to the tracker factory. */
function startSession(id: string): Tracker {
  const entry = trackerFactories.find((f) => f.type === '*');
  assert.ok(entry, 'a tracker factory for every debug type');
  const session = { id, name: id, type: 'luapanda', configuration: {}, customRequest: () => {} };
  return entry.factory.createDebugAdapterTracker(session) as Tracker;
}

const WAIT = { timeoutMs: 20_000 };

describe('extension: the agent-waiting status follows the session monitor', () => {
  let channel: VscodeDebugChannel;
  let monitor: SessionMonitor;
  let statusBar: StatusBar;
  let item: FakeStatusBarItem;
  let contextKeys: ContextKeys;
  let view: vscodeTypes.Disposable;

  beforeEach(() => {
    resetVscode();
    channel = new VscodeDebugChannel();
    monitor = new SessionMonitor(channel);
    statusBar = new StatusBar();
    item = statusBar.waiting as unknown as FakeStatusBarItem;
    contextKeys = new ContextKeys(async () => undefined);
    view = showAgentWaiting({
      monitor,
      statusBar,
      contextKeys,
      serverState: () => ({ kind: 'stopped' }),
    });
  });

  afterEach(() => {
    view.dispose();
    monitor.dispose();
    channel.dispose();
  });

  const agentWaiting = (): unknown => contextKeys.values()[CONTEXT_KEYS.agentWaiting];

  it('shows when a wait begins and goes when the stop it waited for arrives', async () => {
    assert.equal(item.visible, false);
    assert.equal(agentWaiting(), false, 'set at once, before any wait');
    const tracker = startSession('s1');

    const outcome = monitor.waitForStopOrEnd('s1', monitor.mark(), WAIT);
    assert.equal(item.visible, true);
    assert.equal(statusBar.isWaitingShown, true);
    assert.equal(agentWaiting(), true);

    tracker.onDidSendMessage({
      seq: 1,
      type: 'event',
      event: 'stopped',
      body: { reason: 'breakpoint', threadId: 1 },
    });
    assert.equal(item.visible, false, 'gone with the stop, not at a later tick');
    assert.equal(agentWaiting(), false);
    assert.equal((await outcome).kind, 'stopped');
  });

  it('counts the waiting calls; the interrupt command ends them and the item goes', async () => {
    const manager = new McpServerManager({
      workspace: null,
      settings: () => ({ port: 6009, autoStart: false }),
      createServer: () => assert.fail('no server is started here'),
      controlDir: os.tmpdir(),
      log: () => undefined,
      interrupt: () => undefined,
    });
    const log = vscode.window.createOutputChannel('test', { log: true }) as unknown as {
      lines: string[];
    } & vscodeTypes.LogOutputChannel;
    const commands = registerMcpServerCommands({ manager, monitor, log });
    try {
      startSession('s1');
      const first = monitor.waitForStopOrEnd('s1', monitor.mark(), WAIT);
      const second = monitor.waitForStopOrEnd('s1', monitor.mark(), WAIT);
      assert.match(item.text, /Agent waiting \(2\)/);

      const interrupt = registeredCommands.get(COMMANDS.interrupt);
      assert.ok(interrupt, 'the interrupt command is registered');
      assert.equal(interrupt(), 2);
      assert.equal(item.visible, false);
      assert.equal(agentWaiting(), false);
      assert.deepEqual(
        (await Promise.all([first, second])).map((o) => o.kind),
        ['interrupted', 'interrupted'],
      );
      assert.deepEqual(log.lines, ['interrupted 2 waiting agent call(s)']);
    } finally {
      for (const command of commands) command.dispose();
    }
  });

  it('stops following once disposed', async () => {
    view.dispose();
    startSession('s1');
    const outcome = monitor.waitForStopOrEnd('s1', monitor.mark(), WAIT);
    assert.equal(item.visible, false);
    monitor.interrupt('done');
    assert.equal((await outcome).kind, 'interrupted');
  });

  it('a listener that throws breaks neither the wait nor the other listeners', async () => {
    const heard: number[] = [];
    const failing = monitor.onDidChangeWaiting(() => {
      throw new Error('a listener bug');
    });
    const counting = monitor.onDidChangeWaiting((waiting) => void heard.push(waiting));
    startSession('s1');
    const outcome = monitor.waitForStopOrEnd('s1', monitor.mark(), WAIT);
    monitor.interrupt('done');
    assert.equal((await outcome).kind, 'interrupted');
    assert.deepEqual(heard, [1, 0]);
    assert.equal(item.visible, false);
    failing.dispose();
    counting.dispose();
  });
});
