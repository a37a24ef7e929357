/** The code-execution policy (luapanda.mcp.codeExecution) with a stubbed VS Code dialog. */
import { resetVscode, vscode } from './vscodeStub';
import * as assert from 'node:assert/strict';
import {
  ALLOW,
  ALLOW_SESSION,
  DENY,
  createApprover,
} from '../../src/extension/agentTools/approval';
import type { CodeExecutionPolicy } from '../../src/extension/settings';

describe('extension: approval of agent code execution', () => {
  let policy: CodeExecutionPolicy;
  const logged: string[] = [];
  const approve = createApprover(
    () => policy,
    (line) => void logged.push(line),
  );

  beforeEach(() => {
    resetVscode();
    logged.length = 0;
  });

  it('allow: runs without asking', async () => {
    policy = 'allow';
    assert.equal(await approve('evaluate', 'x = 1'), true);
    assert.equal(vscode.window.showWarningMessage.callCount, 0);
  });

  it('deny: refuses without asking, and logs it', async () => {
    policy = 'deny';
    assert.equal(await approve('evaluate', 'os.exit()'), false);
    assert.equal(vscode.window.showWarningMessage.callCount, 0);
    assert.match(logged[0], /refused .*evaluate.*os\.exit\(\)/);
  });

  it('ask: a modal dialog shows the code; Allow allows once', async () => {
    policy = 'ask';
    vscode.debug.activeDebugSession = { id: 's1' };
    vscode.window.showWarningMessage.resolves(ALLOW);
    assert.equal(await approve('evaluate', 'hp = 100'), true);
    const [message, options, ...buttons] = vscode.window.showWarningMessage.firstCall.args;
    assert.match(message, /evaluate code/);
    assert.deepEqual(options, { modal: true, detail: 'hp = 100' });
    assert.deepEqual(buttons, [ALLOW, ALLOW_SESSION, DENY]);
    assert.equal(await approve('evaluate', 'hp = 1'), true);
    assert.equal(vscode.window.showWarningMessage.callCount, 2, 'Allow asks again next time');
  });

  it('ask: "Allow for this Session" stops asking for that debug session only', async () => {
    policy = 'ask';
    vscode.debug.activeDebugSession = { id: 's2' };
    vscode.window.showWarningMessage.resolves(ALLOW_SESSION);
    assert.equal(await approve('setVariable', 'lives = 9'), true);
    assert.equal(await approve('evaluate', 'x'), true);
    assert.equal(vscode.window.showWarningMessage.callCount, 1);
    vscode.debug.activeDebugSession = { id: 's3' };
    vscode.window.showWarningMessage.resolves(DENY);
    assert.equal(await approve('evaluate', 'x'), false);
    assert.equal(vscode.window.showWarningMessage.callCount, 2);
  });

  it('ask: a hot reload asks to "reload code", with the file as the detail', async () => {
    policy = 'ask';
    vscode.debug.activeDebugSession = { id: 's4' };
    vscode.window.showWarningMessage.resolves(DENY);
    assert.equal(await approve('reload', '/game/player.lua'), false);
    const [message, options] = vscode.window.showWarningMessage.firstCall.args;
    assert.equal(message, 'An AI agent wants to reload code in the program you are debugging.');
    assert.deepEqual(options, { modal: true, detail: '/game/player.lua' });
    assert.match(logged[0], /refused the agent's reload: \/game\/player\.lua/);
  });

  it('ask: a dismissed dialog refuses', async () => {
    policy = 'ask';
    vscode.window.showWarningMessage.resolves(undefined);
    assert.equal(await approve('evaluate', 'x'), false);
  });
});
