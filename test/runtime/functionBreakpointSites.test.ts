/**
 * Function breakpoints on local classes and local functions in the bundled runtime: the names the
 * call stack shows (`Player:move`, `helper`, `Entity:update` of a module's local class) reach the
 * runtime with their definition sites, found in the scenario's sources by the IDE's own analysis
 * (functionSites.ts); they bind at once where the file is loaded, when the file loads otherwise,
 * and a name two files define stops in both. The module-name form keeps binding by name.
 */
import { strict as assert } from 'node:assert';
import { runtimeVariants } from '../harness/interpreters';
import { scenario } from '../harness/scenario';
import { FunctionSites } from '../../src/session/breakpoints/functionSites';
import { normalizePath } from '../../src/session/paths';
import { IdeRequestInfo, LuaNotification } from '../../src/protocol';
import { Session, closeAll, finish, line, startSession, topOf } from './helpers';

type Stop = Extract<LuaNotification, { kind: 'stop' }>;
type Names = IdeRequestInfo<'setFunctionBreakPoint'>['names'];

const sc = scenario('functionBreakpoints');
const FILES = ['main.lua', 'game/entity.lua', 'game/other.lua'].map((f) => sc.file(f));

/** The names with the sites the IDE would send (paths as setBreakPoint carries them). */
async function withSites(names: string[]): Promise<Names> {
  const found = await new FunctionSites().find(names, FILES, undefined);
  return names.map((name) => ({
    name,
    sites: (found.get(name) ?? []).map((s) => ({ ...s, path: normalizePath(s.path) })),
  }));
}

function hitFunctions(stop: Stop): string[] {
  return 'hitFunctions' in stop.info ? (stop.info.hitFunctions ?? []) : [];
}

/** Continues from stop to stop until the program ends: each stop's names, file and line. */
async function stopsUntilEnd(s: Session): Promise<[string, string, number][]> {
  const seen: [string, string, number][] = [];
  for (;;) {
    // (The connection closes when the program ends: that ends the wait.)
    const next = await s.ide.next((n) => n.kind === 'stop', 10_000).catch(() => null);
    if (!next || next.kind !== 'stop') break;
    const top = topOf(next.stack);
    seen.push([hitFunctions(next).join(','), top.file, top.line]);
    await s.ide.connection.request('continue', {});
  }
  return seen;
}

/** Starts attach.lua stopped at main.lua's `marker` line. */
async function stoppedAt(lua: Parameters<typeof startSession>[0], marker: string) {
  const s = await startSession(lua, 'attach.lua', {
    dir: sc.dir,
    breakpoints: { 'main.lua': [line(sc.line('main.lua', marker))] },
  });
  await s.ide.nextStop('stopOnBreakpoint');
  return s;
}

const main = (marker: string) => sc.line('main.lua', marker);
const entity = (marker: string) => sc.line('game/entity.lua', marker);
const other = (marker: string) => sc.line('game/other.lua', marker);

for (const lua of runtimeVariants()) {
  describe(`runtime function breakpoints on local classes (${lua.label})`, function () {
    this.timeout(20_000);
    afterEach(closeAll);

    it('bind by definition site: at once where loaded, when the file loads otherwise', async () => {
      const s = await stoppedAt(lua, 'ready');
      const names = await withSites([
        'Player:move',
        'Player.reset',
        'helper',
        'Entity:update',
        'Entity.new',
        'game.entity:describe',
      ]);
      const { results } = await s.ide.connection.request('setFunctionBreakPoint', { names });
      assert.deepEqual(
        results.map((r) => [r.name, r.verified, r.file, r.line]),
        [
          ['Player:move', true, 'main.lua', main('move')],
          ['Player.reset', true, 'main.lua', main('reset')],
          ['helper', true, 'main.lua', main('helper')],
          ['Entity:update', false, undefined, undefined],
          ['Entity.new', false, undefined, undefined],
          ['game.entity:describe', false, undefined, undefined],
        ],
      );
      assert.equal(
        results[3].message,
        `not loaded yet: Entity:update is defined at entity.lua:${entity('update') - 1}, ` +
          `other.lua:${other('otherUpdate') - 1}; it binds when that file's code runs`,
      );
      assert.match(results[5].message ?? '', /^not found yet: no loaded function is named/);
      await s.ide.connection.request('continue', {});
      const stops = await stopsUntilEnd(s);
      assert.deepEqual(stops, [
        ['helper', 'main.lua', main('helper')],
        ['Player:move', 'main.lua', main('move')],
        ['Player.reset', 'main.lua', main('reset')],
        ['Entity.new', 'entity.lua', entity('new')],
        ['Entity:update', 'entity.lua', entity('update')],
        ['game.entity:describe', 'entity.lua', entity('describe')],
        ['Entity.new', 'other.lua', other('otherNew')],
        ['Entity:update', 'other.lua', other('otherUpdate')],
        ['Entity:update', 'entity.lua', entity('update')],
        ['Entity:update', 'other.lua', other('otherUpdate')],
        ['Entity:update', 'entity.lua', entity('update')],
        ['Entity:update', 'other.lua', other('otherUpdate')],
      ]);
      assert.match(await finish(s), /done\t0\t3\.5\t60/);
      const bound = s.ide.notifications.flatMap((n) =>
        n.kind === 'functionsBound' ? n.results : [],
      );
      assert.deepEqual(
        bound.map((r) => [r.name, r.verified, r.file, r.line, r.message]),
        [
          [
            'Entity:update',
            true,
            'entity.lua',
            entity('update'),
            'the name denotes 2 functions; it stops in each ' +
              `(not loaded yet: other.lua:${other('otherUpdate') - 1})`,
          ],
          [
            'Entity.new',
            true,
            'entity.lua',
            entity('new'),
            'the name denotes 2 functions; it stops in each ' +
              `(not loaded yet: other.lua:${other('otherNew') - 1})`,
          ],
          ['game.entity:describe', true, 'entity.lua', entity('describe'), undefined],
        ],
      );
    });

    it('set once every file is loaded: verified at once, each definition stops', async () => {
      const s = await stoppedAt(lua, 'late');
      const names = await withSites(['Entity:update']);
      const { results } = await s.ide.connection.request('setFunctionBreakPoint', { names });
      assert.deepEqual(
        results.map((r) => [r.verified, r.message]),
        [[true, 'the name denotes 2 functions; it stops in each']],
      );
      await s.ide.connection.request('continue', {});
      assert.deepEqual(await stopsUntilEnd(s), [
        ['Entity:update', 'entity.lua', entity('update')],
        ['Entity:update', 'other.lua', other('otherUpdate')],
        ['Entity:update', 'entity.lua', entity('update')],
        ['Entity:update', 'other.lua', other('otherUpdate')],
      ]);
      await finish(s);
    });

    it('a site whose lines match no function of the loaded file never stops', async () => {
      const s = await stoppedAt(lua, 'late');
      const names: Names = [
        {
          name: 'Entity:update',
          sites: [{ path: normalizePath(sc.file('game/entity.lua')), first: 2, last: 3, line: 2 }],
        },
      ];
      await s.ide.connection.request('setFunctionBreakPoint', { names });
      await s.ide.connection.request('continue', {});
      assert.deepEqual(await stopsUntilEnd(s), []);
      await finish(s);
    });
  });
}
