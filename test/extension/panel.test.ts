/** The status bar items and the quick-pick panel's entries, with a stubbed VS Code. */
import { FakeStatusBarItem, ThemeColor, resetVscode } from './vscodeStub';
import * as assert from 'node:assert/strict';
import { COMMANDS, StatusBar, describeState, panelActions } from '../../src/extension/panel';
import { ServerState } from '../../src/extension/serverManager';

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

  it('the panel offers what makes sense in each state', () => {
    const commands = (state: ServerState, waiting = 0) =>
      panelActions(state, true, waiting).map((a) => a.command);
    const common = [
      COMMANDS.changePort,
      COMMANDS.toggleAutoStart,
      COMMANDS.copyConfig,
      COMMANDS.showLog,
    ];
    assert.deepEqual(commands(running), [COMMANDS.stop, COMMANDS.restart, ...common]);
    assert.deepEqual(commands({ kind: 'stopped' }), [COMMANDS.start, ...common]);
    assert.deepEqual(commands(elsewhere), [COMMANDS.start, ...common]);
    assert.match(String(panelActions(elsewhere, true, 0)[0].description), /takes it over/);
    assert.deepEqual(commands(failed, 1), [COMMANDS.interrupt, COMMANDS.start, ...common]);
    assert.match(panelActions(running, false, 0)[3].label, /Auto-start: off/);
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
