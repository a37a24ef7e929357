/**
 * Collecting breakpoints in the bundled runtime (feature `collect`), with the pure-Lua hook and
 * the native accelerator: `setCollect` on a line that also holds the user's breakpoint, each hit
 * sent as a `collectHit` (values, an expression's error as text, the first frames) until the
 * limit, never a stop; the user's breakpoint still stops at its own hit; a malformed expression is
 * refused when set; and the program prints what it prints undebugged (scenario collect).
 */
import { strict as assert } from 'node:assert';
import { runtimeVariants } from '../harness/interpreters';
import type { CollectHit, LuaNotification } from '../../src/protocol';
import { closeAll, finish, runtimeScenario, topOf } from './helpers';

const { dir, fixture, lineOf, startSession } = runtimeScenario('collect');

const hitsOf = (notifications: readonly LuaNotification[]): CollectHit[] =>
  notifications.flatMap((n) => (n.kind === 'collect' ? [n.hit] : []));

for (const lua of runtimeVariants()) {
  describe(`runtime collecting breakpoints (${lua.label})`, function () {
    this.timeout(30_000);
    afterEach(closeAll);

    it('collects on a line without stopping, beside the breakpoint there, up to its limit', async () => {
      const damage = lineOf('main.lua', 'damage');
      const s = await startSession(lua, 'attach.lua', {
        dir,
        breakpoints: {
          'main.lua': [
            { type: 2, line: lineOf('main.lua', 'ready') },
            { type: 0, line: damage, condition: 'frame == 20' },
          ],
        },
      });
      await s.ide.nextStop('stopOnBreakpoint');
      const refused = await s.ide.connection.request('setCollect', {
        collectors: [{ id: 'bad', path: fixture('main.lua'), line: damage, exprs: ['player.'] }],
      });
      assert.equal(refused.results[0].verified, false);
      assert.match(String(refused.results[0].message), /player\./);
      const set = await s.ide.connection.request('setCollect', {
        collectors: [
          {
            id: 'c1',
            path: fixture('main.lua'),
            line: damage,
            exprs: ['player.hp', 'amount', 'nope.x'],
            condition: 'frame > 2',
            limit: 5,
          },
        ],
      });
      assert.deepEqual(
        set.results.map((r) => [r.id, r.verified]),
        [['c1', true]],
      );
      await s.ide.connection.request('continue', {});
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      assert.equal(topOf(stop.stack).line, damage);
      const hits = hitsOf(s.ide.notifications);
      assert.deepEqual(
        hits.map((h) => [h.id, h.hit, h.values?.[0]?.value, h.values?.[1]?.value]),
        [
          ['c1', 1, '97', '3'],
          ['c1', 2, '94', '0'],
          ['c1', 3, '94', '1'],
          ['c1', 4, '93', '2'],
          ['c1', 5, '91', '3'],
        ],
      );
      for (const h of hits) {
        assert.equal(h.values?.[0]?.type, 'number');
        assert.match(String(h.values?.[2]?.error), /nope/);
        assert.deepEqual(
          [h.frames?.[0]?.name, h.frames?.[0]?.line, h.frames?.[1]?.name],
          ['damage', damage, 'main chunk'],
        );
      }
      // The collector is taken away as the IDE does when it has its hits.
      await s.ide.connection.request('setCollect', { collectors: [] });
      await s.ide.connection.request('setBreakPoint', { path: fixture('main.lua'), bks: [] });
      await s.ide.connection.request('continue', {});
      assert.equal(await finish(s), 'start\nhp 40\ndone\n');
      assert.equal(hitsOf(s.ide.notifications).length, 5);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 2);
    });
  });
}
