/**
 * The agent's breakpoints as VS Code breakpoints (stubbed `vscode.debug`): numeric ids stable while
 * a breakpoint exists, verification and adapter ids learned from the setBreakpoints traffic that
 * the tracker sees, and the human's breakpoints visible to the agent.
 */
import {
  FunctionBreakpoint,
  Location,
  Position,
  SourceBreakpoint,
  Uri,
  resetVscode,
  vscode,
} from './vscodeStub';
import * as assert from 'node:assert/strict';
import { VscodeBreakpoints } from '../../src/extension/agentTools/vscodeBreakpoints';

const FILE = '/games/rpg/main.lua';

function answer(
  success: boolean,
  breakpoints: { id?: number; verified: boolean; message?: string }[],
) {
  return {
    seq: 1,
    type: 'response' as const,
    request_seq: 1,
    command: 'setBreakpoints',
    success,
    message: success ? undefined : 'adapter refused',
    body: { breakpoints: breakpoints.map((b) => ({ ...b, line: 0 })) },
  };
}

describe('extension: breakpoints through VS Code', () => {
  let store: VscodeBreakpoints;

  beforeEach(() => {
    resetVscode();
    // session "child" belongs to the agent's session "root" (js-debug style)
    store = new VscodeBreakpoints((id) => (id === 'root' ? ['child', 'root'] : [id]));
  });
  afterEach(() => store.dispose());

  it('adds a gutter breakpoint with the spec, and gives it a stable number', async () => {
    const info = await store.add({
      filePath: FILE,
      line: 10,
      condition: 'hp < 0',
      logMessage: undefined,
    });
    assert.equal(vscode.debug.addBreakpoints.callCount, 1);
    const [added] = vscode.debug.addBreakpoints.firstCall.args[0] as SourceBreakpoint[];
    assert.equal(added.location.uri.fsPath, FILE);
    assert.equal(added.location.range.start.line, 9);
    assert.equal(added.condition, 'hp < 0');
    assert.equal(info.id, 1);
    assert.equal(info.verified, false);
    assert.match(info.message ?? '', /No debug session yet/);
    const second = await store.add({ filePath: FILE, line: 20 });
    assert.equal(second.id, 2);
    assert.deepEqual(
      store.list().map((b) => [b.id, b.line]),
      [
        [1, 10],
        [2, 20],
      ],
    );
  });

  it("lists the human's breakpoints too, under ids that stay while they exist", () => {
    const human = new SourceBreakpoint(
      new Location(Uri.file(FILE), new Position(4, 0)),
      true,
      undefined,
      '> 2',
    );
    vscode.debug.addBreakpoints([human]);
    const first = store.list();
    assert.deepEqual(
      first.map((b) => [b.line, b.hitCondition]),
      [[5, '> 2']],
    );
    assert.equal(store.list()[0].id, first[0].id);
  });

  it('learns verification and adapter ids from the setBreakpoints answers of each session', async () => {
    const a = await store.add({ filePath: FILE, line: 10 });
    const b = await store.add({ filePath: FILE, line: 20 });
    store.onSetBreakpoints(
      'child',
      { source: { path: FILE }, breakpoints: [{ line: 10 }, { line: 20 }] },
      answer(true, [
        { id: 101, verified: true },
        { id: 102, verified: false, message: 'no code on this line' },
      ]),
    );
    const [infoA, infoB] = store.list();
    assert.equal(infoA.verified, true);
    assert.equal(infoA.message, undefined);
    assert.equal(infoB.verified, false);
    assert.equal(infoB.message, 'no code on this line');
    // hitBreakpointIds of the agent's session "root" are looked up in its child too
    assert.equal(store.idForAdapterBreakpoint('root', 101), a.id);
    assert.equal(store.idForAdapterBreakpoint('root', 102), b.id);
    assert.equal(store.idForAdapterBreakpoint('other', 101), undefined);

    store.onBreakpointEvent('child', {
      reason: 'changed',
      breakpoint: { id: 102, verified: true },
    });
    assert.equal(store.list()[1].verified, true);

    store.forgetSession('child');
    assert.equal(store.idForAdapterBreakpoint('root', 101), undefined);
    assert.equal(store.list()[0].verified, false);
  });

  it('removes by our ids, and a removed breakpoint is gone from the list', async () => {
    const a = await store.add({ filePath: FILE, line: 10 });
    const b = await store.add({ filePath: FILE, line: 11 });
    await store.remove([a.id, 999]);
    assert.deepEqual(
      store.list().map((x) => x.id),
      [b.id],
    );
    const c = await store.add({ filePath: FILE, line: 10 });
    assert.notEqual(c.id, a.id, 'ids are never reused');
  });

  it('a refused setBreakpoints leaves the breakpoints unverified with the reason', async () => {
    await store.add({ filePath: FILE, line: 10 });
    store.onSetBreakpoints(
      's',
      { source: { path: FILE }, breakpoints: [{ line: 10 }] },
      answer(false, []),
    );
    assert.equal(store.list()[0].verified, false);
    assert.equal(store.list()[0].message, 'adapter refused');
  });

  it('function breakpoints: added as VS Code ones, bound from the setFunctionBreakpoints traffic, removed by id', async () => {
    const line = await store.add({ filePath: FILE, line: 10 });
    const fn = await store.addFunction({ functionName: 'Entity:update', hitCondition: '> 1' });
    const [added] = vscode.debug.addBreakpoints.secondCall.args[0] as FunctionBreakpoint[];
    assert.deepEqual([added.functionName, added.hitCondition], ['Entity:update', '> 1']);
    assert.notEqual(fn.id, line.id);
    assert.deepEqual(
      [fn.verified, fn.message],
      [false, 'No debug session yet; the breakpoint is set when one starts.'],
    );
    assert.deepEqual(
      store.list().map((b) => b.id),
      [line.id],
    );
    store.onSetFunctionBreakpoints(
      'root',
      { breakpoints: [{ name: 'Entity:update' }] },
      {
        ...answer(true, []),
        command: 'setFunctionBreakpoints',
        body: {
          breakpoints: [{ id: 7, verified: true, line: 12, source: { path: FILE } }],
        },
      },
    );
    const [listed] = store.listFunctions();
    assert.deepEqual(
      [listed.id, listed.verified, listed.filePath, listed.line],
      [fn.id, true, FILE, 12],
    );
    assert.equal(store.idForAdapterBreakpoint('root', 7), fn.id);
    await store.remove([fn.id]);
    assert.deepEqual(store.listFunctions(), []);
    assert.equal(store.list().length, 1);
  });
});
