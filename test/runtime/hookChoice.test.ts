/**
 * The pure-Lua hook's choice between watching calls and watching lines (lua/luapanda/hookchoice.lua)
 * (pure Lua): a thread whose code runs many calls watches lines, one in a loop without calls goes
 * over to calls, and back to lines when calls come back; breakpoints stop in every phase whichever
 * way the thread watches. The choice is read from LuaPanda.getInfo, which the fixture prints.
 */
import { strict as assert } from 'node:assert';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { runtimeVariants } from '../harness/interpreters';
import { closeAll, finish, runtimeScenario, Session, topOf } from './helpers';

// The programs: test/scenarios/hookPath.
const { lineOf, startSession } = runtimeScenario('hookPath');

const FIXTURE = 'hookchoice.lua';
const PAUSE_FIXTURE = 'hookchoice_pause.lua';
const SAMPLE_FIXTURE = 'hookchoice_sample.lua';
const MODULES = path.join(__dirname, '..', '..', '..', 'lua');

for (const lua of runtimeVariants().filter((v) => !v.native)) {
  describe(`runtime: calls or lines (${lua.label})`, function () {
    this.timeout(60_000);
    afterEach(closeAll);
    const ends = ['endA', 'endB', 'endC'];
    const bks = ends.map((m) => ({ verified: true, type: 2, line: lineOf(FIXTURE, m) }));
    /** Stops at the end of each phase in turn, then gives what the program printed. */
    async function stopAtEachEnd(s: Session): Promise<string> {
      for (const marker of ends) {
        const stop = await s.ide.nextStop('stopOnBreakpoint', 30_000);
        assert.equal(topOf(stop.stack).line, lineOf(FIXTURE, marker));
        await s.ide.connection.request('continue', {});
      }
      return finish(s);
    }

    it('watches lines in code with many calls, calls in a loop without any, lines again after; stops in each phase', async () => {
      const s = await startSession(lua, FIXTURE, { breakpoints: { [FIXTURE]: bks } });
      const out = await stopAtEachEnd(s);
      assert.match(out, /^A\tlines\t/m);
      assert.match(out, /^B\tcalls\ttrue$/m);
      assert.match(out, /^C\tlines\ttrue$/m);
    });

    it('goes to lines after a while with a breakpoint in a file that never loads; its other breakpoints stop', async () => {
      const s = await startSession(lua, FIXTURE, {
        breakpoints: {
          [FIXTURE]: bks,
          'never_loaded.lua': [{ verified: true, type: 2, line: 3 }],
        },
        args: ['auto', 'waitA'],
      });
      const out = await stopAtEachEnd(s);
      assert.match(out, /^A\tlines\t/m);
      assert.match(out, /^C\tlines\ttrue$/m);
    });

    it('takes an unknown hookStrategy for "auto", and getInfo says so', async () => {
      const s = await startSession(lua, FIXTURE, {
        breakpoints: { [FIXTURE]: bks },
        args: ['Lines'],
      });
      const out = await stopAtEachEnd(s);
      assert.match(out, /^A\tlines\t/m);
      assert.match(out, /^B\tcalls\ttrue$/m);
      assert.match(out, /^C\tlines\ttrue$/m);
      assert.match(out, /\(hookStrategy=Lines, not auto, calls or lines: auto\)$/m);
    });

    for (const strategy of ['calls', 'lines']) {
      it(`keeps watching ${strategy} with hookStrategy = "${strategy}", and stops in each phase`, async () => {
        const s = await startSession(lua, FIXTURE, {
          breakpoints: { [FIXTURE]: bks },
          args: [strategy],
        });
        const out = await stopAtEachEnd(s);
        // (The phases that wait for a change give up after their bound: the choice never moves.)
        for (const phase of ['A', 'B', 'C']) {
          assert.match(out, new RegExp(`^${phase}\\t${strategy}\\t`, 'm'));
        }
        // (A kept choice has nothing to decide: lines never sample calls.)
        if (strategy === 'lines') assert.match(out, /^MASK\tl$/m);
      });
    }

    it("samples its calls for a short tick: an eighth of a tick's lines", async () => {
      const s = await startSession(lua, SAMPLE_FIXTURE, {
        breakpoints: {
          [SAMPLE_FIXTURE]: [{ verified: true, type: 2, line: lineOf(SAMPLE_FIXTURE, 'never') }],
        },
      });
      assert.match(await finish(s), /^MASK\tl\ttrue$/m);
    });

    for (const strategy of ['calls', 'lines', 'auto']) {
      for (const where of ['inside', 'elsewhere']) {
        it(`pauses a loop without calls ${where === 'inside' ? 'in a function with' : 'beside'} a breakpoint (${strategy})`, async () => {
          const s = await startSession(lua, PAUSE_FIXTURE, {
            breakpoints: {
              [PAUSE_FIXTURE]: [{ verified: true, type: 2, line: lineOf(PAUSE_FIXTURE, 'never') }],
            },
            args: [strategy, where],
          });
          await s.lua.waitForOutput(/spinning/, 10_000);
          await s.ide.connection.request('pause', {});
          const paused = await s.ide.nextStop('stopOnPause', 10_000);
          const reply = await s.ide.connection.request('runREPLExpression', {
            Expression: 'finished = true',
            stackId: String(topOf(paused.stack).index),
          });
          assert.equal(reply[0]?.isSuccess, true, JSON.stringify(reply));
          await s.ide.connection.request('continue', {});
          assert.match(await finish(s), /done\ttrue/);
        });
      }
    }

    it('decides by the counts of one tick: calls when they cost clearly less than lines', () => {
      const script = `
        package.path = ${JSON.stringify(path.join(MODULES, '?.lua'))} .. ";" .. package.path
        local c = require("luapanda.hookchoice")
        assert(c.callsCheaper(1000, 0, "elsewhere"))           -- a loop without calls
        assert(c.callsCheaper(1000, 0, "below"))
        assert(not c.callsCheaper(1000, 0, "inside"))          -- its lines are hooked either way
        assert(not c.callsCheaper(1000, 1000, "elsewhere"))    -- a call per line
        assert(c.callsCheaper(1000, 200, "elsewhere"))         -- a call every five lines
        assert(not c.callsCheaper(1000, 200, "below"))         -- ... but below a breakpoint's function
        assert(c.nextRetry(0.4, true) == 0.8 and c.nextRetry(3.2, true) == c.RETRY_MAX)
        assert(c.nextRetry(3.2, false) == c.RETRY_FIRST)
        assert(c.nextRetry(0.1, true, 0.05) == 0.05 * c.TRY_SHARE) -- a slow try: tried seldom
        print("ok")`;
      const run = spawnSync(lua.command, ['-e', script], { encoding: 'utf8' });
      assert.equal(run.stdout.trim(), 'ok', run.stderr);
    });
  });
}
