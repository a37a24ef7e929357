/**
 * Several games on one attach port in VS Code: the attach session debugs the first game, and the
 * second that connects shows as a child session under it in the Call Stack, named after the game;
 * each stops at the shared breakpoint and ends on its own.
 */
import * as assert from 'node:assert/strict';
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  EXTENSION_ID,
  StopRecorder,
  markedLine,
  waitUntil,
  workspaceFile,
  workspaceFolder,
} from './helpers';

/** The port of the "Lua: games" configuration in the fixture workspace. */
const GAMES_PORT = 28818;

describe('several games on one attach port in VS Code', () => {
  const recorder = new StopRecorder();
  const games: ChildProcess[] = [];
  const started: vscode.DebugSession[] = [];
  const ended = new Set<string>();
  const subscriptions = [
    vscode.debug.onDidStartDebugSession((s) => started.push(s)),
    vscode.debug.onDidTerminateDebugSession((s) => ended.add(s.id)),
  ];

  after(async () => {
    for (const game of games) game.kill();
    for (const s of subscriptions) s.dispose();
    recorder.dispose();
    vscode.debug.removeBreakpoints(vscode.debug.breakpoints);
    if (vscode.debug.activeDebugSession) await vscode.debug.stopDebugging();
  });

  function launchGame(name: string): ChildProcess {
    const runtime = path.join(
      vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath,
      'dist',
      'lua',
    );
    const luaPath = `${path.join(runtime, '?.lua')};;`;
    const game = spawn('lua5.4', [workspaceFile('games.lua'), String(GAMES_PORT), name], {
      cwd: workspaceFolder().uri.fsPath,
      env: { ...process.env, LUA_PATH_5_4: luaPath, LUA_PATH: luaPath },
      stdio: 'ignore',
    });
    games.push(game);
    return game;
  }

  it('shows the second game as a child session that stops and ends on its own', async () => {
    const line = markedLine('games.lua', 'game');
    vscode.debug.addBreakpoints([
      new vscode.SourceBreakpoint(
        new vscode.Location(
          vscode.Uri.file(workspaceFile('games.lua')),
          new vscode.Position(line - 1, 0),
        ),
        true,
        'round == 1',
      ),
    ]);
    const before = recorder.stops.length;
    assert.ok(await vscode.debug.startDebugging(workspaceFolder(), 'Lua: games'));
    const attach = started.find((s) => s.name === 'Lua: games');
    assert.ok(attach, 'the attach session started');
    launchGame('server');
    await recorder.next(before);
    launchGame('client');
    await waitUntil(
      () => started.some((s) => s.name === 'client'),
      30_000,
      'the second game to get a session of its own',
    );
    const child = started.find((s) => s.name === 'client')!;
    assert.equal(child.parentSession?.id, attach.id, 'a child of the attach session');
    assert.equal(child.type, 'luapanda');
    await waitUntil(
      () => recorder.stops.some((stop) => stop.sessionId === child.id),
      30_000,
      'the second game to stop',
    );
    const childStop = recorder.stops.find((stop) => stop.sessionId === child.id)!;
    assert.equal(childStop.body.reason, 'breakpoint');

    // The second game runs to its end (the breakpoint stops once per game); the first stays
    // stopped in its own session.
    await child.customRequest('continue', { threadId: childStop.body.threadId });
    await waitUntil(() => ended.has(child.id), 30_000, 'the second game to end its session');
    assert.ok(!ended.has(attach.id), 'the attach session goes on');
    const { stackFrames } = (await attach.customRequest('stackTrace', {
      threadId: 1,
      levels: 1,
    })) as { stackFrames: { line: number }[] };
    assert.equal(stackFrames[0]?.line, line, 'the first game is still stopped at its breakpoint');
    await attach.customRequest('continue', { threadId: 1 });
    await waitUntil(() => ended.has(attach.id), 30_000, 'the first game to end the attach session');
  });
});
