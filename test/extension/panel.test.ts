/** The status bar items and the quick-pick panel's entries, with a stubbed VS Code. */
import { FakeStatusBarItem, ThemeColor, resetVscode } from './vscodeStub';
import * as assert from 'node:assert/strict';
import {
  COMMANDS,
  CONTEXT_KEYS,
  ContextKeys,
  StatusBar,
  contextValues,
  describeState,
  panelActions,
} from '../../src/extension/mcpServer/panel';
import { ServerState } from '../../src/extension/mcpServer/serverManager';

const running: ServerState = {
  kind: 'running',
  port: 6009,
  url: 'http://127.0.0.1:6009/mcp',
  instanceId: 'i',
  sessions: 1,
};
const elsewhere: ServerState = { kind: 'elsewhere', port: 6009, workspace: '/games/rpg', pid: 42 };
const failed: ServerState = {
  kind: 'error',
  port: 6009,
  message: 'Port 6009 is in use',
  cause: 'port-in-use',
};

describe('extension: status bar and panel', () => {
  beforeEach(() => resetVscode());

  it('the server item sits on the right, shows the state and opens the panel', () => {
    const bar = new StatusBar();
    const item = bar.server as unknown as FakeStatusBarItem;
    assert.equal(item.alignment, 2);
    assert.equal(item.command, COMMANDS.panel);
    bar.render(running);
    assert.equal(item.text, '$(debug-alt) LuaPanda MCP :6009');
    assert.equal(item.visible, true);
    assert.match(String(item.tooltip), /1 client session\b/);
    bar.render(elsewhere);
    assert.equal(item.text, '$(window) LuaPanda MCP: other window');
    assert.match(String(item.tooltip), /folder \/games\/rpg/);
    bar.render({ kind: 'stopped' });
    assert.equal(item.text, '$(debug-disconnect) LuaPanda MCP: stopped');
    assert.equal(item.backgroundColor, undefined);
    bar.render(failed);
    assert.equal(item.text, '$(error) LuaPanda MCP: error');
    assert.deepEqual(item.backgroundColor, new ThemeColor('statusBarItem.errorBackground'));
  });

  it('the waiting item shows while an agent waits and interrupts on click', () => {
    const bar = new StatusBar();
    const item = bar.waiting as unknown as FakeStatusBarItem;
    assert.equal(item.command, COMMANDS.interrupt);
    bar.setWaiting(2);
    assert.equal(item.visible, true);
    assert.equal(bar.isWaitingShown, true);
    assert.match(item.text, /Agent waiting \(2\)/);
    bar.setWaiting(0);
    assert.equal(item.visible, false);
    assert.equal(bar.isWaitingShown, false);
  });

  it('the panel offers what makes sense in each state, the Doctor included', () => {
    const commands = (state: ServerState, waiting = 0) =>
      panelActions(state, true, waiting, 6009).map((a) => a.command);
    const common = [
      COMMANDS.copyConfig,
      COMMANDS.doctor,
      COMMANDS.showLog,
      COMMANDS.changePort,
      COMMANDS.toggleAutoStart,
    ];
    assert.deepEqual(commands(running), [...common, COMMANDS.restart, COMMANDS.stop]);
    assert.deepEqual(commands({ kind: 'starting', port: 6009 }), [
      ...common,
      COMMANDS.restart,
      COMMANDS.stop,
    ]);
    assert.deepEqual(commands({ kind: 'stopped' }), [COMMANDS.start, ...common]);
    assert.deepEqual(commands(elsewhere), [COMMANDS.start, ...common]);
    assert.match(String(panelActions(elsewhere, true, 0, 6009)[0].description), /takes it over/);
    assert.deepEqual(commands(failed, 1), [COMMANDS.start, ...common, COMMANDS.interrupt]);
    assert.deepEqual(commands(running, 2), [
      ...common,
      COMMANDS.interrupt,
      COMMANDS.restart,
      COMMANDS.stop,
    ]);
    const autoStart = panelActions(running, false, 0, 6009).find(
      (a) => a.command === COMMANDS.toggleAutoStart,
    );
    assert.match(String(autoStart?.label), /Auto-start: off/);
    const doctor = panelActions(running, true, 0, 6009).find((a) => a.command === COMMANDS.doctor);
    assert.match(String(doctor?.description), /does not connect/);
  });

  it('Enter right after the status bar was clicked neither stops the server nor interrupts an agent', () => {
    const harmless = new Set<string>([COMMANDS.copyConfig, COMMANDS.start]);
    const states: ServerState[] = [
      running,
      { kind: 'starting', port: 6009 },
      { kind: 'stopped' },
      elsewhere,
      failed,
    ];
    for (const state of states) {
      for (const waiting of [0, 1]) {
        const first = panelActions(state, true, waiting, 6009)[0];
        assert.ok(harmless.has(first.command), `${state.kind}, ${waiting} waiting: ${first.label}`);
      }
    }
  });

  it('"Change port…" names a port in every state, the configured one while stopped', () => {
    const portEntry = (state: ServerState) =>
      panelActions(state, true, 0, 7100).find((a) => a.command === COMMANDS.changePort);
    assert.equal(portEntry(running)?.description, 'now 6009');
    assert.equal(portEntry({ kind: 'stopped' })?.description, 'port 7100');
    assert.equal(portEntry(elsewhere)?.description, 'port 6009');
    assert.equal(portEntry(failed)?.description, 'port 6009');
  });

  it('the context keys follow the server state, so the palette offers Start or Stop', () => {
    assert.deepEqual(contextValues(running, 0), {
      [CONTEXT_KEYS.running]: true,
      [CONTEXT_KEYS.state]: 'running',
      [CONTEXT_KEYS.agentWaiting]: false,
    });
    assert.equal(contextValues({ kind: 'starting', port: 6009 }, 0)[CONTEXT_KEYS.running], true);
    for (const state of [{ kind: 'stopped' } as const, elsewhere, failed]) {
      assert.equal(contextValues(state, 0)[CONTEXT_KEYS.running], false, state.kind);
    }
    assert.equal(contextValues(failed, 2)[CONTEXT_KEYS.agentWaiting], true);

    const calls: [string, unknown][] = [];
    const keys = new ContextKeys(async (key, value) => void calls.push([key, value]));
    keys.update({ kind: 'stopped' }, 0);
    keys.update({ kind: 'stopped' }, 0);
    assert.equal(calls.length, 3, 'each key is set once, then only when it changes');
    keys.update(running, 0);
    assert.deepEqual(calls.slice(3), [
      [CONTEXT_KEYS.running, true],
      [CONTEXT_KEYS.state, 'running'],
    ]);
    assert.equal(keys.values()[CONTEXT_KEYS.running], true);
  });

  it('describes every state in words', () => {
    assert.equal(
      describeState(running),
      'Running on http://127.0.0.1:6009/mcp (1 client session).',
    );
    assert.equal(
      describeState(elsewhere),
      'Served by another VS Code window on port 6009 (folder /games/rpg), pid 42.',
    );
    assert.equal(describeState(failed), 'Error on port 6009: Port 6009 is in use');
  });
});
