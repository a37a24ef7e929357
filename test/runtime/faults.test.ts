/**
 * Fault loops: the runtime never goes deaf and re-attaches every time. The IDE link is dropped at
 * random moments of the session, over and over; the collector runs at every allocation during
 * start(), the handshake and a coroutine scenario; handshakes with wrong-typed fields are refused
 * (with the field named) and a correct IDE attaches after them; a breakpoint near the C-stack
 * limit neither freezes nor kills the program. Every wait is bounded; nothing measures time.
 * Rounds are tunable: LUAPANDA_FAULT_LOOPS, LUAPANDA_FAULT_GC_RUNS; LUAPANDA_FAULT_SEED replays
 * a failing sequence of drops (the seed is in every failure message).
 */
import { strict as assert } from 'node:assert';
import { LuaInterpreter, runtimeVariants } from '../harness/interpreters';
import { LuaProcess, spawnLua } from '../harness/luaProcess';
import { scenario } from '../harness/scenario';
import { TestIde } from '../harness/testIde';
import { LuaNotification } from '../../src/protocol';
import {
  closeIde,
  closeTracked,
  countFromEnv,
  faultSeed,
  freePort,
  isFullVariant,
  runtimeInfo,
  seededRandom,
  sleep,
  track,
  withEvidence,
} from './faultKit';
import { BUNDLE_DIR, closeAll, finish, line, runtimeScenario, topOf } from './helpers';
import { RawIde, upstreamInit } from './rawIde';

const LOOP = 'faults_loop.lua';
const GC = 'faults_gc.lua';
const GC_STRESS = 'faults_gcstress.lua';
const CSTACK = 'faults_cstack.lua';
/** The programs: test/scenarios/faults. */
const { dir: FIXTURES, fixture, lineOf, startSession } = runtimeScenario('faults');

/** The coroutine scenario's program that starts the runtime itself. */
const coroutines = scenario('coroutines');
const COROUTINES = 'attach.lua';

/** Bounds of the waits: generous for a loaded CI machine, never a measurement. */
const ATTACH_MS = 10_000;
const STOP_MS = 10_000;

/** Where a session's link is dropped, in the order a session gets there. */
const MOMENTS = [
  'accepted',
  'initSuccess',
  'setBreakPoint',
  'configurationDone',
  'stopped',
  'continued',
  'getVariable',
] as const;
type Moment = (typeof MOMENTS)[number];

/** Starts `script` under `lua` with the bundle on package.path; tracked until the test ends. */
function spawnTracked(lua: LuaInterpreter, script: string, args: string[]): LuaProcess {
  return track(spawnLua(lua, fixture(script), { args, luaPath: [BUNDLE_DIR], cwd: FIXTURES }));
}

/** Handshake as our adapter does it (waitConfigurationDone), one breakpoint, configurationDone. */
async function attach(ide: TestIde, file: string, lines: number[]): Promise<void> {
  await ide.handshake({ cwd: FIXTURES, waitConfigurationDone: true });
  await ide.connection.request('setBreakPoint', { path: fixture(file), bks: lines.map(line) });
  await ide.connection.request('configurationDone', {});
}

/** Sets the global `finished` through the REPL in the given frame (or while running). */
async function tellToFinish(ide: TestIde, stackId = '2'): Promise<void> {
  const reply = await ide.connection.request('runREPLExpression', {
    Expression: 'finished = true',
    stackId,
  });
  assert.equal(reply[0]?.isSuccess, true, JSON.stringify(reply));
}

/** Waits for the program's exit; it must be 0, with stdout matching `expected`. */
async function exitsCleanly(lua: LuaProcess, expected: RegExp): Promise<void> {
  const exit = await lua.waitForExit(15_000);
  assert.equal(exit.code, 0, `exit ${exit.code} ${exit.signal ?? ''}; ${lua.describe()}`);
  assert.match(lua.stdout, expected);
}

for (const lua of runtimeVariants()) {
  describe(`runtime faults (${lua.label})`, function () {
    this.timeout(120_000);
    afterEach(async () => {
      await closeAll();
      await closeTracked();
    });

    // -------------------------------------------------------------------------------------------
    // 1. The link dropped at random moments

    // 100 rounds take about 5 s per variant: Lua 5.4 (pure and native: one of each hook) runs
    // them all, the other variants a sample, so that the whole file stays well under two minutes.
    const loops = countFromEnv('LUAPANDA_FAULT_LOOPS', isFullVariant(lua) ? 100 : 15);

    it(`re-attaches after the IDE link dropped at random moments, ${loops} times`, async function () {
      // A round takes a fraction of a second; a soak run with many rounds gets the time it needs.
      this.timeout(60_000 + loops * 1_000);
      const seed = faultSeed();
      const random = seededRandom(seed);
      const workLine = lineOf(LOOP, 'work');
      let ide = track(await TestIde.start());
      const port = ide.port;
      const program = spawnTracked(lua, LOOP, [String(port), String(60 + loops)]);
      const history: Moment[] = [];

      /** One session, dropped at `moment` after a random moment's wait (0–3 ms). */
      async function session(moment: Moment): Promise<void> {
        await ide.accept(ATTACH_MS);
        if (moment === 'accepted') return;
        await ide.handshake({ cwd: FIXTURES, waitConfigurationDone: true });
        if (moment === 'initSuccess') return;
        await ide.connection.request('setBreakPoint', {
          path: fixture(LOOP),
          bks: [line(workLine)],
        });
        if (moment === 'setBreakPoint') return;
        await ide.connection.request('configurationDone', {});
        if (moment === 'configurationDone') return;
        // A session that goes on past configurationDone must stop at its breakpoint.
        const stop = await ide.nextStop('stopOnBreakpoint', STOP_MS);
        const top = topOf(stop.stack);
        assert.equal(top.line, workLine);
        if (moment === 'stopped') return;
        // The reply races the drop: whether it arrives does not matter.
        const inFlight =
          moment === 'continued'
            ? ide.connection.request('continue', {})
            : ide.connection.request('getVariable', {
                varRef: '10000',
                stackId: String(top.index),
              });
        inFlight.catch(() => undefined);
      }

      for (let round = 1; round <= loops; round++) {
        const moment = MOMENTS[Math.floor(random() * MOMENTS.length)];
        history.push(moment);
        try {
          await session(moment);
        } catch (error) {
          throw await withEvidence(
            `round ${round}/${loops} (dropped ${moment}; seed ${seed}; ` +
              `last moments ${history.slice(-6).join(', ')})`,
            error,
            program,
            ide,
          );
        }
        await sleep(Math.floor(random() * 4));
        await closeIde(ide);
        ide = track(await TestIde.start({ port }));
      }
      // The last IDE: the breakpoint still stops, and the program is told to finish.
      try {
        await ide.accept(ATTACH_MS);
        await attach(ide, LOOP, [workLine]);
        const stop = await ide.nextStop('stopOnBreakpoint', STOP_MS);
        assert.equal(topOf(stop.stack).line, workLine);
        await tellToFinish(ide, String(topOf(stop.stack).index));
        await ide.connection.request('continue', {});
        await exitsCleanly(program, /faults loop done\ttrue\ttrue/);
      } catch (error) {
        throw await withEvidence(`after ${loops} drops (seed ${seed})`, error, program, ide);
      }
    });

    // -------------------------------------------------------------------------------------------
    // 2. The collector at every allocation

    // Each run starts an interpreter; 20 per scenario on every variant would take minutes.
    const gcRuns = countFromEnv('LUAPANDA_FAULT_GC_RUNS', isFullVariant(lua) ? 20 : 5);
    // Lua 5.4 and 5.5 have a generational collector too: half of their runs use it.
    const gcMode = (run: number) =>
      /5\.[45]/.test(lua.version) && run % 2 === 0 ? 'generational' : 'incremental';
    const gcLine = lineOf(GC, 'gcWork');
    // A run takes well under a second; many runs (LUAPANDA_FAULT_GC_RUNS) get the time they need.
    const gcTimeout = 60_000 + gcRuns * 3_000;

    /** The rest of a GC run once attached: the breakpoint stops, the program finishes. */
    async function stopAndFinish(ide: TestIde, program: LuaProcess): Promise<void> {
      const stop = await ide.nextStop('stopOnBreakpoint', STOP_MS);
      assert.equal(topOf(stop.stack).line, gcLine);
      await tellToFinish(ide, String(topOf(stop.stack).index));
      await ide.connection.request('continue', {});
      await exitsCleanly(program, /gc done\ttrue\ttrue/);
    }

    it(`attaches with a collection at every allocation during start() and the handshake, ${gcRuns} runs`, async function () {
      this.timeout(gcTimeout);
      for (let run = 1; run <= gcRuns; run++) {
        const ide = track(await TestIde.start());
        const program = spawnTracked(lua, GC_STRESS, [String(ide.port), fixture(GC), gcMode(run)]);
        try {
          await ide.accept(ATTACH_MS);
          await attach(ide, GC, [gcLine]);
          await stopAndFinish(ide, program);
        } catch (error) {
          throw await withEvidence(`run ${run} (${gcMode(run)})`, error, program, ide);
        }
        await closeIde(ide);
      }
    });

    it(`reaches an IDE that listens only after start() through the GC heartbeat, ${gcRuns} runs`, async function () {
      this.timeout(gcTimeout);
      const seed = faultSeed();
      const random = seededRandom(seed);
      for (let run = 1; run <= gcRuns; run++) {
        const port = await freePort();
        const program = spawnTracked(lua, GC_STRESS, [String(port), fixture(GC), gcMode(run)]);
        let ide: TestIde | undefined;
        try {
          await program.waitForOutput(/STARTED/, ATTACH_MS);
          // Let the heartbeat find nobody a few times first.
          await sleep(Math.floor(random() * 200));
          ide = track(await TestIde.start({ port }));
          await ide.accept(ATTACH_MS);
          await attach(ide, GC, [gcLine]);
          await stopAndFinish(ide, program);
        } catch (error) {
          throw await withEvidence(
            `run ${run} (${gcMode(run)}; seed ${seed})`,
            error,
            program,
            ide,
          );
        }
        await closeIde(ide);
      }
    });

    // The old flaky "runtime coroutines (lua5.2 native)" failure: a link that went deaf because a
    // finalizer attached from inside require("socket.core"). The same scenario, under the GC.
    it(`runs the coroutine scenario with a collection at every allocation, ${gcRuns} runs`, async function () {
      this.timeout(gcTimeout);
      const at = (marker: string) => coroutines.line(COROUTINES, marker);
      for (let run = 1; run <= gcRuns; run++) {
        const s = await startSession(lua, COROUTINES, {
          dir: coroutines.dir,
          script: fixture(GC_STRESS),
          args: [gcMode(run)],
          breakpoints: { [COROUTINES]: [at('workerAfter'), at('wrapBody'), at('early')].map(line) },
        });
        try {
          const c = s.ide.connection;
          const worker = await s.ide.nextStop('stopOnBreakpoint', STOP_MS);
          assert.equal(topOf(worker.stack).line, at('workerAfter'));
          const locals = await c.request('getVariable', {
            varRef: '10000',
            stackId: String(topOf(worker.stack).index),
          });
          assert.equal(locals.find((v) => v.name === 'got')?.value, '10');
          await c.request('continue', {});
          const wrapped = await s.ide.nextStop('stopOnBreakpoint', STOP_MS);
          assert.equal(topOf(wrapped.stack).line, at('wrapBody'));
          await c.request('continue', {});
          const early = await s.ide.nextStop('stopOnBreakpoint', STOP_MS);
          assert.equal(topOf(early.stack).line, at('early'));
          await c.request('continue', {});
        } catch (error) {
          throw await withEvidence(`run ${run} (${gcMode(run)})`, error, s.lua, s.ide);
        }
        assert.match(await finish(s), /coroutines\t2\t20\t1\t6/);
      }
    });

    // -------------------------------------------------------------------------------------------
    // 3. Wrong-typed handshake fields

    it('refuses initSuccess fields of the wrong type, naming the field, then debugs with a correct IDE', async () => {
      const wrong: [string, unknown][] = [
        ['luaFileExtension', {}],
        ['cwd', 42],
        ['stopOnEntry', {}],
        ['logLevel', 'abc'],
        ['pagingLimit', 'x'],
        ['autoPathMode', 7],
      ];
      const first = track(await RawIde.start());
      const port = first.port;
      const program = spawnTracked(lua, LOOP, [String(port), '60']);
      let raw: RawIde | undefined = first;
      for (const [field, value] of wrong) {
        raw ??= track(await RawIde.start(port));
        try {
          await raw.accept(ATTACH_MS);
          raw.send({
            callbackId: '7',
            cmd: 'initSuccess',
            info: { ...upstreamInit(FIXTURES), waitConfigurationDone: 'true', [field]: value },
          });
          const reply = await raw.cmd('initSuccess', STOP_MS);
          const info = reply.json.info as Record<string, unknown>;
          assert.equal(reply.json.callbackId, '7');
          assert.match(String(info.error), new RegExp(`field '${field}'`), reply.text);
          // The runtime drops the link: waiting for a frame that never comes ends with the close.
          await assert.rejects(
            raw.next(() => false, STOP_MS),
            /connection closed/,
          );
        } catch (error) {
          throw await withEvidence(`${field} = ${JSON.stringify(value)}`, error, program);
        }
        await closeIde(raw);
        raw = undefined;
      }
      const ide = track(await TestIde.start({ port }));
      try {
        await ide.accept(ATTACH_MS);
        await attach(ide, LOOP, [lineOf(LOOP, 'work')]);
        const stop = await ide.nextStop('stopOnBreakpoint', STOP_MS);
        const top = topOf(stop.stack);
        assert.equal(top.line, lineOf(LOOP, 'work'));
        const locals = await ide.connection.request('getVariable', {
          varRef: '10000',
          stackId: String(top.index),
        });
        assert.ok(
          locals.some((v) => v.name === 'i'),
          JSON.stringify(locals),
        );
        await tellToFinish(ide, String(top.index));
        await ide.connection.request('continue', {});
        await exitsCleanly(program, /faults loop done\ttrue\ttrue/);
      } catch (error) {
        throw await withEvidence('the correct IDE after the refusals', error, program, ide);
      }
    });

    // -------------------------------------------------------------------------------------------
    // 4. A breakpoint near the C-stack limit

    // PUC Lua allows about 200 nested C calls: 196 gsub levels run plainly, 197 overflow. A hook
    // written in Lua is called through C and so takes one more level while it runs (with any Lua
    // hook, the program's own too): the pure-Lua runtime goes one level less deep (documented in
    // Docs/Doc_Common.md, "What a program can still see"). LuaJIT has no such count on this path;
    // its limit is the thread's C stack, which it overruns into a crash near 900 levels (8 MB
    // stack), so it stays at a depth that is merely deep.
    const depths = lua.isLuaJIT ? [190, 600] : lua.native ? [190, 196] : [190, 195];
    for (const depth of depths) {
      it(`does not freeze the program at a breakpoint ${depth} C calls deep`, async () => {
        const s = await startSession(lua, CSTACK, {
          args: [String(depth)],
          breakpoints: {
            [CSTACK]: [line(lineOf(CSTACK, 'innermost')), line(lineOf(CSTACK, 'shallow'))],
          },
        });
        const c = s.ide.connection;
        // Either the stop could not be sent, or the check of the breakpoint line could not run.
        const isSkipped = (n: LuaNotification) =>
          n.kind === 'log' &&
          /stop \(stopOnBreakpoint\) was skipped|breakpoint check\(s\) could not be made/.test(
            n.text,
          );
        let stoppedDeep = false;
        let info = '';
        try {
          const first = await s.ide.next((n) => n.kind === 'stop' || isSkipped(n), STOP_MS);
          if (first.kind === 'stop' && topOf(first.stack).line === lineOf(CSTACK, 'innermost')) {
            stoppedDeep = true;
            await c.request('continue', {});
          }
          // The connection still works: the shallow breakpoint stops.
          const shallow =
            first.kind === 'stop' && !stoppedDeep
              ? first
              : await s.ide.nextStop('stopOnBreakpoint', STOP_MS);
          assert.equal(topOf(shallow.stack).line, lineOf(CSTACK, 'shallow'));
          await c.request('continue', {});
          // …and pause stops the loop after it.
          await s.lua.waitForOutput(/shallow\t2/, STOP_MS);
          await c.request('pause', {});
          const paused = await s.ide.nextStop('stopOnPause', STOP_MS);
          const top = topOf(paused.stack);
          // In the loop, or on one of the two lines before it when the pause came first.
          const spin = lineOf(CSTACK, 'spin');
          assert.ok(top.line >= spin - 2 && top.line <= spin + 1, `paused at line ${top.line}`);
          // The runtime's account, in case the skipped stop was not reported by the end.
          if (!stoppedDeep) info = await runtimeInfo(s.ide);
          await tellToFinish(s.ide, String(top.index));
          await c.request('continue', {});
        } catch (error) {
          throw await withEvidence(`depth ${depth}`, error, s.lua, s.ide);
        }
        assert.match(await finish(s), /deep\tdone\nshallow\t2\ncstack done\ttrue/);
        assert.ok(
          stoppedDeep || s.ide.notifications.some(isSkipped),
          `depth ${depth}: neither the deep stop nor a word that it was skipped; frames: ` +
            `${JSON.stringify(s.ide.notifications)}; getInfo(): ${info}`,
        );
      });
    }
  });
}
