/**
 * A compound of two `luapanda` launch configurations in VS Code: both programs start, each in a
 * debug session of its own (its own adapter, its own port), each stops at its breakpoint, and one
 * ends while the other stays stopped.
 */
import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { StopRecorder, markedLine, waitUntil, workspaceFile, workspaceFolder } from './helpers';

function breakpointAt(file: string, marker: string, condition: string): vscode.SourceBreakpoint {
  const line = markedLine(file, marker);
  return new vscode.SourceBreakpoint(
    new vscode.Location(vscode.Uri.file(workspaceFile(file)), new vscode.Position(line - 1, 0)),
    true,
    condition,
  );
}

async function topLine(session: vscode.DebugSession, threadId: number): Promise<number> {
  const { stackFrames } = (await session.customRequest('stackTrace', {
    threadId,
    levels: 1,
  })) as { stackFrames: { line: number }[] };
  return stackFrames[0]?.line ?? 0;
}

describe('a compound of two launch configurations in VS Code', () => {
  const recorder = new StopRecorder();
  const started: vscode.DebugSession[] = [];
  const ended = new Set<string>();
  const subscriptions = [
    vscode.debug.onDidStartDebugSession((s) => started.push(s)),
    vscode.debug.onDidTerminateDebugSession((s) => ended.add(s.id)),
  ];

  after(async () => {
    for (const s of subscriptions) s.dispose();
    recorder.dispose();
    vscode.debug.removeBreakpoints(vscode.debug.breakpoints);
    for (const s of started) if (!ended.has(s.id)) await vscode.debug.stopDebugging(s);
  });

  it('starts both programs, each in a session of its own that stops and ends on its own', async () => {
    // Conditions make each breakpoint stop once, so nothing has to be removed in a hurry.
    vscode.debug.addBreakpoints([
      breakpointAt('main.lua', 'loop', 'i == 1'),
      breakpointAt('reloadgame.lua', 'tick', 'frame == 1'),
    ]);
    const before = started.length;
    assert.ok(await vscode.debug.startDebugging(workspaceFolder(), 'Lua: main and reload'));
    const named = (name: string) => started.slice(before).find((s) => s.name === name);
    await waitUntil(
      () => named('Lua: main') !== undefined && named('Lua: reload') !== undefined,
      30_000,
      'both sessions of the compound to start',
    );
    const main = named('Lua: main')!;
    const reload = named('Lua: reload')!;
    assert.notEqual(main.id, reload.id);
    const stopOf = (session: vscode.DebugSession) =>
      recorder.stops.find((stop) => stop.sessionId === session.id);
    await waitUntil(
      () => stopOf(main) !== undefined && stopOf(reload) !== undefined,
      30_000,
      'both programs to stop at their breakpoints',
    );
    const mainThread = stopOf(main)!.body.threadId!;
    const reloadThread = stopOf(reload)!.body.threadId!;
    assert.equal(await topLine(main, mainThread), markedLine('main.lua', 'loop'));
    assert.equal(await topLine(reload, reloadThread), markedLine('reloadgame.lua', 'tick'));

    await main.customRequest('continue', { threadId: mainThread });
    await waitUntil(() => ended.has(main.id), 30_000, 'the first program to end its session');
    assert.ok(!ended.has(reload.id), 'the other session goes on');
    assert.equal(
      await topLine(reload, reloadThread),
      markedLine('reloadgame.lua', 'tick'),
      'the other program is still stopped',
    );
    await reload.customRequest('continue', { threadId: reloadThread });
    await waitUntil(() => ended.has(reload.id), 30_000, 'the second program to end its session');
  });
});
