/**
 * The native hook's line filter (native/hook.c), with the accelerator on every interpreter: below
 * and inside a function with line breakpoints a thread watches lines alone, each line's number
 * checked in C, and goes back to watching calls once a tick finds no function with breakpoints on
 * its stack. Breakpoints stop in a function entered while lines are watched (no call event names
 * it) and in one called after; function breakpoints keep the call events they need.
 */
import { strict as assert } from 'node:assert';
import { runtimeVariants } from '../harness/interpreters';
import { closeAll, finish, runtimeScenario, topOf } from './helpers';

// The programs: test/scenarios/hookPath.
const { lineOf, startSession } = runtimeScenario('hookPath');

const FIXTURE = 'native_filter.lua';
const RESUME_FIXTURE = 'native_resume_mode.lua';

for (const lua of runtimeVariants().filter((v) => v.native)) {
  describe(`runtime: the native line filter (${lua.label})`, function () {
    this.timeout(60_000);
    afterEach(closeAll);
    const bp = (marker: string) => ({ verified: true, type: 2, line: lineOf(FIXTURE, marker) });

    it('watches lines alone inside a function with breakpoints and calls after it; stops in both', async () => {
      const s = await startSession(lua, FIXTURE, {
        breakpoints: { [FIXTURE]: [bp('neverF'), bp('inG'), bp('inH')] },
      });
      for (const marker of ['inG', 'inH']) {
        const stop = await s.ide.nextStop('stopOnBreakpoint', 30_000);
        assert.equal(topOf(stop.stack).line, lineOf(FIXTURE, marker));
        await s.ide.connection.request('continue', {});
      }
      const out = await finish(s);
      assert.match(out, /^INSIDE\tl$/m);
      assert.match(out, /^AFTER\tc\ttrue\ttrue$/m);
      assert.match(out, /^H\t2$/m);
    });

    for (const which of ['early', 'late']) {
      it(`stops in a coroutine resumed in the middle of a function with breakpoints (${which === 'early' ? 'Lua' : 'native'} wrapper)`, async () => {
        const s = await startSession(lua, RESUME_FIXTURE, {
          breakpoints: {
            [RESUME_FIXTURE]: ['neverUpdate', 'afterYield'].map((m) => ({
              verified: true,
              type: 2,
              line: lineOf(RESUME_FIXTURE, m),
            })),
          },
          args: [which],
        });
        const stop = await s.ide.nextStop('stopOnBreakpoint', 30_000);
        assert.equal(topOf(stop.stack).line, lineOf(RESUME_FIXTURE, 'afterYield'));
        await s.ide.connection.request('continue', {});
        assert.match(await finish(s), /^RESUMED\ttrue\t1\ttrue$/m);
      });
    }

    it('keeps call events with a function breakpoint', async () => {
      const s = await startSession(lua, FIXTURE, {
        breakpoints: { [FIXTURE]: [bp('neverF')] },
        functionBreakpoints: [{ name: 'h' }],
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint', 30_000);
      assert.equal(topOf(stop.stack).line, lineOf(FIXTURE, 'inH'));
      await s.ide.connection.request('continue', {});
      // (Calls and returns: the call of getInfo made f's callee the running function, BELOW.)
      assert.match(await finish(s), /^INSIDE\tcrl?$/m);
    });
  });
}
