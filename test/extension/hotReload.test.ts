/**
 * Hot reload from the editor, with a stubbed VS Code and a fake debug channel: the command sends
 * the editor's text of the file to the LuaPanda session and says the outcome (information on
 * success, an error otherwise); reload on save does the same when the setting is on, and keeps a
 * file the program never loaded out of the user's way.
 */
import { resetVscode, vscode } from './vscodeStub';
import * as assert from 'node:assert/strict';
import * as sinon from 'sinon';
import type { DebugChannel, DebugSessionPort } from '../../src/mcp/channel';
import {
  HotReloadOptions,
  hotReloadCommand,
  reloadOnSave,
  reloadTarget,
} from '../../src/extension/debug/hotReload';
import { normalizeReport } from '../../src/session/hotReload';
import { reloadReply } from '../session/reloadReply';

const FILE = '/game/player.lua';
const SUCCESS = normalizeReport(
  FILE,
  reloadReply({
    status: 'success',
    replaced: [{ name: 'Player:update', line: 12 }],
    timeMs: 1.5,
  }),
);

function port(type: string, id = `${type}-1`) {
  return {
    id,
    name: id,
    type,
    customRequest: sinon.stub().resolves(SUCCESS),
  } as unknown as DebugSessionPort & { customRequest: sinon.SinonStub };
}

function channel(sessions: DebugSessionPort[], active?: DebugSessionPort): DebugChannel {
  return {
    sessions: () => sessions,
    activeSession: () => active ?? sessions.at(-1),
  } as unknown as DebugChannel;
}

function document(file = FILE, text = 'return {}') {
  return { uri: vscode.Uri.file(file), getText: () => text, languageId: 'lua' };
}

describe('extension: hot reload from the editor', () => {
  let logged: string[];
  let onSave: boolean;
  const options = (ch: DebugChannel): HotReloadOptions => ({
    channel: ch,
    onSave: () => onSave,
    log: (line) => void logged.push(line),
  });

  beforeEach(() => {
    resetVscode();
    vscode.window.setStatusBarMessage.reset();
    logged = [];
    onSave = false;
  });

  it('reloads into the active LuaPanda session, else the newest one, never another debugger', () => {
    const lua1 = port('luapanda', 'a');
    const lua2 = port('luapanda', 'b');
    const node = port('node');
    assert.equal(reloadTarget(channel([lua1, lua2], lua1)), lua1);
    assert.equal(reloadTarget(channel([lua1, node, lua2], node)), lua2);
    assert.equal(reloadTarget(channel([node], node)), undefined);
  });

  it('prefers the focused LuaPanda session (one game of several, which the channel folds)', async () => {
    const root = port('luapanda', 'root');
    const child = sinon.stub().resolves(SUCCESS);
    vscode.debug.activeDebugSession = { id: 'child', type: 'luapanda', customRequest: child };
    vscode.window.activeTextEditor = { document: document() };
    await hotReloadCommand(options(channel([root], root)));
    assert.equal(child.callCount, 1, 'the focused game got it');
    assert.equal(root.customRequest.callCount, 0);
    vscode.debug.activeDebugSession = { id: 'n', type: 'node' };
    assert.equal(
      reloadTarget(channel([root], root)),
      root,
      'a focused node session is passed over',
    );
  });

  it('an attach session, focused or active, reloads the file into each of its games', async () => {
    const hub = port('luapanda', 'games');
    const server = Object.assign(port('luapanda', 'server'), { parentId: 'games' });
    const client = Object.assign(port('luapanda', 'client'), { parentId: 'games' });
    const failed = { ...SUCCESS, status: 'error', message: 'syntax error' };
    client.customRequest.resolves(failed);
    vscode.debug.activeDebugSession = {
      id: 'games',
      type: 'luapanda',
      customRequest: sinon.stub(),
    };
    vscode.window.activeTextEditor = { document: document() };
    const outcome = await hotReloadCommand(options(channel([hub, server, client], hub)));
    assert.equal(server.customRequest.callCount, 1);
    assert.equal(client.customRequest.callCount, 1);
    assert.equal(hub.customRequest.callCount, 0, 'the attach session runs no program');
    assert.equal(outcome.ok, false, "one game's failure is the outcome");
    vscode.debug.activeDebugSession = undefined;
    await hotReloadCommand(options(channel([hub, server], hub)));
    assert.equal(server.customRequest.callCount, 2, 'its only game, through the active session');
  });

  it("the command sends the editor's text of the file and shows the outcome", async () => {
    const lua = port('luapanda');
    const doc = document(FILE, 'local unsaved = true');
    vscode.window.activeTextEditor = { document: doc };
    const outcome = await hotReloadCommand(options(channel([lua])));
    assert.deepEqual(lua.customRequest.firstCall.args, [
      'luapanda/hotReload',
      { path: FILE, source: 'local unsaved = true' },
    ]);
    assert.equal(outcome.ok, true);
    assert.equal(
      vscode.window.showInformationMessage.firstCall.args[0],
      'Hot reload player.lua: replaced Player:update; 1.5 ms',
    );
    assert.equal(vscode.window.showErrorMessage.callCount, 0);
    assert.deepEqual(logged, ['Hot reload player.lua: replaced Player:update; 1.5 ms']);
  });

  it('the command reloads the file a menu passes (its open editor text), and says where details are', async () => {
    const lua = port('luapanda');
    lua.customRequest.resolves(
      normalizeReport(
        '/game/util.lua',
        reloadReply({
          status: 'success',
          replaced: [{ name: 'util.f', line: 1 }],
          active: [{ name: 'util.loop', line: 9 }],
        }),
      ),
    );
    vscode.workspace.textDocuments = [document('/game/util.lua', 'edited')];
    await hotReloadCommand(options(channel([lua])), vscode.Uri.file('/game/util.lua'));
    assert.deepEqual(lua.customRequest.firstCall.args[1], {
      path: '/game/util.lua',
      source: 'edited',
    });
    assert.match(
      vscode.window.showInformationMessage.firstCall.args[0],
      /^Hot reload util\.lua: replaced util\.f; 0 ms \(details in the Debug Console\)$/,
    );
  });

  it('a failed reload is an error notification that says why', async () => {
    const lua = port('luapanda');
    const failed = reloadReply({
      status: 'error',
      error: "player.lua:3: '=' expected near 'x'",
      phase: 'compile',
    });
    lua.customRequest.resolves(normalizeReport(FILE, failed));
    vscode.window.activeTextEditor = { document: document() };
    const outcome = await hotReloadCommand(options(channel([lua])));
    assert.equal(outcome.ok, false);
    assert.equal(
      vscode.window.showErrorMessage.firstCall.args[0],
      "Hot reload player.lua failed (compile): player.lua:3: '=' expected near 'x' — nothing changed",
    );
    lua.customRequest.rejects(new Error('The Lua runtime in this program cannot hot reload'));
    await hotReloadCommand(options(channel([lua])));
    assert.equal(
      vscode.window.showErrorMessage.secondCall.args[0],
      'Hot reload failed: The Lua runtime in this program cannot hot reload',
    );
  });

  it('the command says what is missing: a Lua file, a LuaPanda session', async () => {
    await hotReloadCommand(options(channel([port('luapanda')])));
    assert.match(vscode.window.showErrorMessage.firstCall.args[0], /open a Lua file/);
    vscode.window.activeTextEditor = { document: document() };
    await hotReloadCommand(options(channel([port('node')])));
    assert.match(
      vscode.window.showErrorMessage.secondCall.args[0],
      /no LuaPanda debug session is running/,
    );
  });

  it('reload on save: only with the setting on, only Lua files, quiet for a file the program never loaded', async () => {
    const lua = port('luapanda');
    const ch = channel([lua]);
    assert.equal(await reloadOnSave(options(ch), document() as never), undefined, 'setting off');
    onSave = true;
    assert.equal(await reloadOnSave(options(ch), document('/game/notes.txt') as never), undefined);
    assert.equal(lua.customRequest.callCount, 0);

    const saved = await reloadOnSave(options(ch), document(FILE, 'saved text') as never);
    assert.equal(saved?.ok, true);
    assert.deepEqual(lua.customRequest.firstCall.args[1], { path: FILE, source: 'saved text' });
    assert.match(vscode.window.setStatusBarMessage.firstCall.args[0], /^Hot reload player\.lua/);

    lua.customRequest.resolves(
      normalizeReport(FILE, reloadReply({ status: 'error', error: 'not loaded', phase: 'find' })),
    );
    await reloadOnSave(options(ch), document() as never);
    assert.equal(vscode.window.showErrorMessage.callCount, 0, 'a file never loaded is no error');
    assert.equal(vscode.window.setStatusBarMessage.callCount, 2);

    lua.customRequest.resolves(
      normalizeReport(FILE, reloadReply({ status: 'error', error: 'bad', phase: 'compile' })),
    );
    await reloadOnSave(options(ch), document() as never);
    assert.match(vscode.window.showErrorMessage.firstCall.args[0], /failed \(compile\): bad/);
    assert.equal(
      await reloadOnSave(options(channel([])), document() as never),
      undefined,
      'no session',
    );
  });
});
