/**
 * Several games on one attach port in VS Code: the attach session is the parent of every game —
 * each game that connects, the first included, shows as a child session under it in the Call
 * Stack (the tree VS Code builds from each session's `parentSession`), named after the game; the
 * parent's one thread stands for its games (the toolbar's pause and steps on it act on them, or
 * say why not); each game stops at the shared breakpoint and ends on its own; stopping the attach
 * session ends the games' sessions too.
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

  /** The game's exit code, once it exited. */
  function exitOf(game: ChildProcess): Promise<number | null> {
    return new Promise((resolve) => {
      if (game.exitCode !== null) resolve(game.exitCode);
      else game.once('exit', (code) => resolve(code));
    });
  }

  /** The child session named `name`, once VS Code started it, and its first stop. */
  async function gameSession(name: string): Promise<vscode.DebugSession> {
    await waitUntil(
      () => started.some((s) => s.name === name),
      30_000,
      `the game "${name}" to get a session of its own`,
    );
    const session = started.find((s) => s.name === name)!;
    await waitUntil(
      () => recorder.stops.some((stop) => stop.sessionId === session.id),
      30_000,
      `the game "${name}" to stop`,
    );
    return session;
  }

  it('shows every game as a child session of the attach session, each stopping and ending on its own', async () => {
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
    assert.ok(await vscode.debug.startDebugging(workspaceFolder(), 'Lua: games'));
    const attach = started.find((s) => s.name === 'Lua: games');
    assert.ok(attach, 'the attach session started');
    const server = launchGame('server');
    const first = await gameSession('server');
    const client = launchGame('client');
    const second = await gameSession('client');

    // Two child sessions under the attach session in the Call Stack, one per game.
    for (const child of [first, second]) {
      assert.equal(
        child.parentSession?.id,
        attach.id,
        `"${child.name}" is a child of the attach session`,
      );
      assert.equal(child.type, 'luapanda');
    }
    const children = started.filter((s) => s.parentSession?.id === attach.id && !ended.has(s.id));
    assert.deepEqual(
      children.map((s) => s.name),
      ['server', 'client'],
    );
    const { threads } = (await attach.customRequest('threads')) as { threads: unknown[] };
    assert.deepEqual(threads, [{ id: 1, name: 'Games' }], "one thread, for its games' controls");
    // The toolbar's Pause on the attach session (as after F5, when it has focus): with both games
    // paused it is refused, saying why, instead of doing nothing.
    await assert.rejects(
      Promise.resolve(
        // (A Call Stack context is the second argument; the first is a resource.)
        vscode.commands.executeCommand('workbench.action.debug.pause', undefined, {
          sessionId: attach.id,
        }),
      ),
      /Every game is paused already \("server", "client"\)/,
    );
    for (const child of [first, second]) {
      const stop = recorder.stops.find((s) => s.sessionId === child.id)!;
      assert.equal(stop.body.reason, 'breakpoint');
    }

    // The second game runs to its end (the breakpoint stops once per game); the first stays
    // stopped in its own session, and the attach session goes on.
    const secondStop = recorder.stops.find((s) => s.sessionId === second.id)!;
    await second.customRequest('continue', { threadId: secondStop.body.threadId });
    await waitUntil(() => ended.has(second.id), 30_000, 'the second game to end its session');
    assert.equal(await exitOf(client), 0, 'the second game ran to its end');
    assert.ok(!ended.has(attach.id), 'the attach session goes on');
    assert.ok(!ended.has(first.id), "the first game's session goes on");
    const { stackFrames } = (await first.customRequest('stackTrace', {
      threadId: 1,
      levels: 1,
    })) as { stackFrames: { line: number }[] };
    assert.equal(stackFrames[0]?.line, line, 'the first game is still stopped at its breakpoint');

    // Step Over on the attach session steps its one paused game.
    const stopsBefore = recorder.stops.length;
    await vscode.commands.executeCommand('workbench.action.debug.stepOver', undefined, {
      sessionId: attach.id,
    });
    await waitUntil(
      () => recorder.stops.slice(stopsBefore).some((s) => s.sessionId === first.id),
      20_000,
      "the first game's step, asked of the attach session",
    );
    assert.equal(recorder.stops.at(-1)?.body.reason, 'step');

    // Stopping the attach session ends the first game's session too; the game runs on.
    await vscode.debug.stopDebugging(attach);
    await waitUntil(
      () => ended.has(attach.id) && ended.has(first.id),
      30_000,
      'the attach session and its game session to end',
    );
    assert.equal(await exitOf(server), 0, 'the detached game ran on to its end');
  });
});
