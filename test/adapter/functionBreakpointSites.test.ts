// Function breakpoints on local classes and local functions through the out-of-process adapter,
// in launch and attach (scenario functionBreakpoints): the names the call stack shows
// (`Player:move`, `helper`, `Entity:update` of modules' local classes) bind by where the
// workspace's sources define them — at once for a loaded file, as a module loads otherwise — and
// stop on entry with the breakpoint's id, in every file that defines the name.
import * as assert from 'node:assert/strict';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { luaInterpreters } from '../harness/interpreters';
import { scenario } from '../harness/scenario';
import { BUNDLE_DIR } from '../runtime/helpers';
import type { DapTest, StopState } from './dapHarness';
import { useDapTest } from './useDapTest';

const sc = scenario('functionBreakpoints');
const MAIN = sc.file('main.lua');
const ENTITY = sc.file('game', 'entity.lua');
const OTHER = sc.file('game', 'other.lua');

/** The stop `first` and the `more` after it (continuing from each), then the session's end:
 * each stop's file, line, top frame name and breakpoint ids. */
async function stops(t: DapTest, first: StopState, more: number) {
  const seen: [string | undefined, number, string, number[]][] = [];
  let stop = first;
  for (let i = 0; ; i++) {
    seen.push([
      stop.top.source?.path,
      stop.top.line,
      stop.top.name,
      stop.event.hitBreakpointIds ?? [],
    ]);
    await t.dc.continueRequest({ threadId: stop.event.threadId ?? 1 });
    if (i === more) break;
    stop = await t.stoppedAt('breakpoint');
  }
  await t.ended();
  return seen;
}

for (const lua of luaInterpreters()) {
  describe(`function breakpoints on local classes through the adapter on ${lua.command}`, function () {
    this.timeout(30_000);
    const t = useDapTest();

    const changes = (id: number | undefined) =>
      t.events
        .filter((e): e is DebugProtocol.BreakpointEvent => e.event === 'breakpoint')
        .map((e) => e.body.breakpoint)
        .filter((bp) => bp.id === id);
    const latest = (id: number | undefined) => changes(id).at(-1);

    it('launch: binds local classes and local functions by the names the stack shows', async () => {
      await t.launch(
        lua.command,
        MAIN,
        {},
        {
          functionBreakpoints: [
            { name: 'Player:move' },
            { name: 'helper' },
            { name: 'Entity:update', hitCondition: '<= 2' },
          ],
        },
      );
      const [move, helper, update] = t.functionBreakpointResponse;
      const first = await t.stoppedAt('breakpoint', MAIN, sc.line('main.lua', 'helper'));
      // Before the modules load: main.lua's names are bound, Entity:update waits for its files.
      assert.equal(latest(move.id)?.verified, true);
      assert.equal(latest(move.id)?.source?.path, MAIN);
      assert.equal(latest(move.id)?.line, sc.line('main.lua', 'move'));
      assert.equal(latest(update.id)?.verified, false);
      assert.match(
        String(latest(update.id)?.message),
        /^not loaded yet: Entity:update is defined at entity\.lua:\d+, other\.lua:\d+/,
      );
      assert.deepEqual(await stops(t, first, 3), [
        [MAIN, sc.line('main.lua', 'helper'), 'helper', [helper.id]],
        [MAIN, sc.line('main.lua', 'move'), 'Player:move', [move.id]],
        [ENTITY, sc.line('game/entity.lua', 'update'), 'Entity:update', [update.id]],
        [OTHER, sc.line('game/other.lua', 'otherUpdate'), 'Entity:update', [update.id]],
      ]);
      // (Unbound again once the program ended: the event that bound it.)
      const bound = changes(update.id).find((bp) => bp.verified);
      assert.equal(bound?.source?.path, ENTITY);
      assert.equal(bound?.line, sc.line('game/entity.lua', 'update'));
      assert.match(
        String(bound?.message),
        /^the name denotes 2 functions; it stops in each \(not loaded yet: other\.lua:\d+\)$/,
      );
      assert.match(t.output, /done\t0\t3\.5\t60/);
    });

    it('attach: a module required before the attach binds at once', async () => {
      const game = await t.attachGame(lua, sc.file('attach.lua'), {
        luaPath: [BUNDLE_DIR],
        breakpoints: { [MAIN]: [{ line: sc.line('main.lua', 'late') }] },
      });
      const late = await t.stoppedAt('breakpoint', MAIN, sc.line('main.lua', 'late'));
      const response = await t.dc.setFunctionBreakpointsRequest({
        breakpoints: [{ name: 'Entity.update' }],
      });
      const [update] = response.body.breakpoints;
      assert.equal(update.verified, true);
      assert.equal(update.source?.path, ENTITY);
      assert.equal(update.message, 'the name denotes 2 functions; it stops in each');
      assert.deepEqual(
        (await stops(t, late, 4)).slice(1).map(([file, line, name]) => [file, line, name]),
        [
          [ENTITY, sc.line('game/entity.lua', 'update'), 'Entity:update'],
          [OTHER, sc.line('game/other.lua', 'otherUpdate'), 'Entity:update'],
          [ENTITY, sc.line('game/entity.lua', 'update'), 'Entity:update'],
          [OTHER, sc.line('game/other.lua', 'otherUpdate'), 'Entity:update'],
        ],
      );
      await game.waitForExit(10_000);
    });
  });
}
