// A real engine: the LÖVE 11 game in test/fixtures/love/game runs under Xvfb, calls
// require("LuaPanda").start() while nobody listens and idles on its title screen; the DAP adapter
// then attaches to it, stops it in love.update and in a module of a subfolder, steps, detaches,
// re-attaches, and finally lets it quit. Once with the pure-Lua runtime, once with the native
// accelerator. The attach latencies and love.update times are printed, not asserted.
import * as assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { DapTest, TIMEOUT_MS, freePort } from '../adapter/dapHarness';
import { ATTACH_BOUND_S, attachRunning, gameFile, lineOf, repl, scopeValues } from './loveDebug';
import { FrameReport, LoveGame, startGame, stopAllGames } from './loveGame';
import { LoveVariant, loveMissing, loveVariants, mustRunLove } from './loveSetup';

const MAIN = gameFile('main.lua');
const PHYSICS = gameFile('systems/physics.lua');
const PLAYER = gameFile('entities/player.lua');
/** LÖVE starts in well under a second here; an X server on a loaded CI machine may not. */
const GAME_START_MS = 20_000;

/** The median of the reports' love.update times, for the log. */
function us(reports: FrameReport[]): string {
  const sorted = reports.map((r) => r.updateMicros).sort((a, b) => a - b);
  return `${(sorted[Math.floor(sorted.length / 2)] ?? NaN).toFixed(1)} µs`;
}

/** Waits for `count` more frame reports and returns them, less the first (it may straddle). */
async function framesFrom(game: LoveGame, count: number): Promise<FrameReport[]> {
  const from = game.reports().length + 1;
  await game.waitForMoreFrames(count, TIMEOUT_MS);
  return game.reports().slice(from);
}

function describeVariant(variant: LoveVariant): void {
  describe(`LÖVE 11 game, ${variant.label} runtime`, function () {
    this.timeout(90_000);
    const sessions: DapTest[] = [];

    const log = (text: string) => console.log(`      [love ${variant.label}] ${text}`);

    before(function () {
      const missing = loveMissing();
      if (missing !== undefined) {
        if (mustRunLove()) throw new Error(`The LÖVE tests cannot run: ${missing}`);
        console.warn(`      Skipping the LÖVE tests: ${missing}`);
        this.skip();
      }
      if (variant.problem !== undefined) throw new Error(variant.problem);
    });

    afterEach(async () => {
      for (const t of sessions.splice(0)) await t.close();
      await stopAllGames();
    });

    /** Starts the game with nobody listening on its port and waits until it runs its loop. */
    async function runningGame(): Promise<LoveGame> {
      return startGame({ port: await freePort(), native: variant.native }, 3, GAME_START_MS);
    }

    async function newSession(): Promise<DapTest> {
      const t = await new DapTest().open();
      sessions.push(t);
      return t;
    }

    /** Sets breakpoints in `file` while the game runs; they must be confirmed. */
    async function setBreakpointWhileRunning(t: DapTest, file: string, ...lines: number[]) {
      const sent = performance.now();
      const response = await t.dc.setBreakpointsRequest({
        source: { path: file },
        breakpoints: lines.map((line) => ({ line })),
      });
      log(`breakpoints set while running answered in ${(performance.now() - sent).toFixed(0)} ms`);
      for (const bp of response.body.breakpoints) {
        if (bp.verified) continue;
        // The runtime knows a file is loaded once it has seen its code run. An idle game reads the
        // request at a safe point that may lie in LÖVE's own boot.lua (between two callbacks):
        // then main.lua binds at its next callback, and the adapter says so with an event.
        assert.match(bp.message ?? '', /Not loaded yet/, `breakpoint at line ${bp.line}`);
        await boundLater(t, bp.id);
      }
    }

    /** Waits (bounded) for the event that says breakpoint `id` is verified. */
    async function boundLater(t: DapTest, id: number | undefined): Promise<void> {
      const deadline = Date.now() + TIMEOUT_MS;
      const bound = () =>
        t.events.some(
          (e) =>
            e.event === 'breakpoint' &&
            e.body?.breakpoint?.id === id &&
            e.body?.breakpoint?.verified === true,
        );
      while (!bound()) {
        const left = deadline - Date.now();
        assert.ok(left > 0, `breakpoint ${id} never bound; events: ${JSON.stringify(t.events)}`);
        await t.dc.waitForEvent('breakpoint', Math.min(left, 500)).catch(() => undefined);
      }
      log(`breakpoint ${id} bound when main.lua's code ran`);
    }

    /** Detaches without ending the game and waits for the session's end. */
    async function detach(t: DapTest): Promise<void> {
      const sent = performance.now();
      await t.dc.disconnectRequest({ terminateDebuggee: false });
      await t.ended();
      log(`detach answered in ${(performance.now() - sent).toFixed(0)} ms`);
    }

    async function attach(t: DapTest, game: LoveGame, breakpoints = {}): Promise<void> {
      const latency = await attachRunning(t, game, breakpoints);
      log(`the running game connected ${latency.toFixed(0)} ms after the adapter listened`);
    }

    it(`connects to an idle game that ran before the IDE listened, within ${ATTACH_BOUND_S} s`, async () => {
      const game = await runningGame();
      const t = await newSession();
      const plain = game.reports().slice(1); // the first one includes start-up
      await attach(t, game);
      const attached = await framesFrom(game, 4);
      // Breakpoints set while the idle game runs must reach it (the gutter stays grey if not).
      const quitLine = lineOf('main.lua', 'quit');
      await setBreakpointWhileRunning(t, MAIN, quitLine);
      const elsewhere = await framesFrom(game, 4);
      log(
        `love.update work, median of 30-frame means: plain ${us(plain)}, attached ${us(attached)}, ` +
          `attached with a breakpoint in love.quit ${us(elsewhere)}`,
      );
      const updateLine = lineOf('main.lua', 'update');
      await setBreakpointWhileRunning(t, MAIN, quitLine, updateLine);
      const stop = await t.stoppedAt('breakpoint', MAIN, updateLine);
      await t.dc.setBreakpointsRequest({ source: { path: MAIN }, breakpoints: [] });
      await t.dc.continueRequest({ threadId: stop.event.threadId ?? 1 });
      await t.dc.disconnectRequest({});
      await game.waitForMoreFrames(2, TIMEOUT_MS);
    });

    it('stops at a breakpoint in love.update; the stack, scopes and variables are readable', async () => {
      const game = await runningGame();
      const t = await newSession();
      const line = lineOf('main.lua', 'update');
      await attach(t, game, { [MAIN]: [{ line }] });
      const reportedBefore = game.lastFrame();
      const stop = await t.stoppedAt('breakpoint', MAIN, line);
      log(
        `stack: ${stop.frames.map((f) => `${f.name} (${f.source?.path ?? f.source?.name ?? '?'}:${f.line})`).join(' <- ')}`,
      );
      const scopes = await scopeValues(t, stop.top.id);
      assert.ok(Number(scopes.Locals?.dt) > 0, `dt is a positive number: ${scopes.Locals?.dt}`);
      assert.ok(Number.isFinite(Number(scopes.Locals?.started)), 'started is a number');
      const frame = Number(scopes.Upvalues?.frame);
      assert.ok(frame >= reportedBefore, `frame (${scopes.Upvalues?.frame}) ≥ ${reportedBefore}`);
      const watched = await t.dc.evaluateRequest({
        expression: 'frame + 1',
        frameId: stop.top.id,
        context: 'watch',
      });
      assert.equal(Number(watched.body.result), frame + 1);
      log(`LuaPanda.getInfo() inside LÖVE:\n${await repl(t, stop.top.id, 'LuaPanda.getInfo()')}`);
      await t.dc.setBreakpointsRequest({ source: { path: MAIN }, breakpoints: [] });
      await t.dc.continueRequest({ threadId: stop.event.threadId ?? 1 });
      await game.waitForMoreFrames(2, TIMEOUT_MS);
    });

    it('stops in a module of a subfolder and steps over, into and out of functions', async () => {
      const game = await runningGame();
      const t = await newSession();
      await attach(t, game, { [PHYSICS]: [{ line: lineOf('systems/physics.lua', 'stepFirst') }] });
      const stop = await t.stoppedAt(
        'breakpoint',
        PHYSICS,
        lineOf('systems/physics.lua', 'stepFirst'),
      );
      assert.equal(stop.frames[1]?.source?.path, PLAYER, 'called from Player:update');
      await t.dc.setBreakpointsRequest({ source: { path: PHYSICS }, breakpoints: [] });
      await t.dc.nextRequest({ threadId: 1 });
      await t.stoppedAt('step', PHYSICS, lineOf('systems/physics.lua', 'stepSecond'));
      await t.dc.nextRequest({ threadId: 1 });
      await t.stoppedAt('step', PHYSICS, lineOf('systems/physics.lua', 'stepCall'));
      await t.dc.stepInRequest({ threadId: 1 });
      const inside = await t.stoppedAt(
        'step',
        PHYSICS,
        lineOf('systems/physics.lua', 'bounceFirst'),
      );
      assert.equal(inside.frames[1]?.line, lineOf('systems/physics.lua', 'stepCall'), 'caller');
      await t.dc.stepOutRequest({ threadId: 1 });
      // Like PUC Lua, a step out goes on to the caller's next line.
      await t.stoppedAt('step', PHYSICS, lineOf('systems/physics.lua', 'stepAfter'));
      await t.dc.continueRequest({ threadId: 1 });
      await game.waitForMoreFrames(2, TIMEOUT_MS);
    });

    it('detaches while running and while stopped; the game runs on and re-attaches each time', async () => {
      const game = await runningGame();
      const line = lineOf('main.lua', 'update');
      const first = await newSession();
      await attach(first, game, { [MAIN]: [{ line }] });
      const stop = await first.stoppedAt('breakpoint', MAIN, line);
      await first.dc.setBreakpointsRequest({ source: { path: MAIN }, breakpoints: [] });
      await first.dc.continueRequest({ threadId: stop.event.threadId ?? 1 });
      await detach(first);
      const detachedAt = game.lastFrame();
      await game.waitForMoreFrames(3, TIMEOUT_MS);

      const second = await newSession();
      await attach(second, game, { [MAIN]: [{ line }] });
      const again = await second.stoppedAt('breakpoint', MAIN, line);
      const frame = Number((await scopeValues(second, again.top.id)).Upvalues?.frame);
      assert.ok(frame > detachedAt, `frame ${frame} > ${detachedAt}: it ran on after the detach`);
      await detach(second);
      const stoppedAt = game.lastFrame();
      await game.waitForMoreFrames(3, TIMEOUT_MS);
      assert.ok(game.lastFrame() > stoppedAt, 'a detach while stopped resumes the game');

      const third = await newSession();
      await attach(third, game, { [MAIN]: [{ line }] });
      await third.stoppedAt('breakpoint', MAIN, line);
    });

    it('stops at an error only LÖVE catches, then LÖVE reports it as it does without the debugger', async () => {
      // Unattached: the runtime is loaded and nobody listens.
      const plain = await startGame(
        { port: await freePort(), native: variant.native, raise: 5, every: 1 },
        1,
        GAME_START_MS,
      );
      await plain.waitForExit(TIMEOUT_MS);
      const report = (stderr: string) => stderr.slice(stderr.indexOf('Error: '));
      assert.match(
        report(plain.stderr),
        /^Error: main\.lua:\d+: attempt to index/,
        plain.describe(),
      );

      const game = await runningGame();
      const t = await newSession();
      const update = lineOf('main.lua', 'update');
      await attach(t, game, { [MAIN]: [{ line: update }] });
      const stop = await t.stoppedAt('breakpoint', MAIN, update);
      await repl(t, stop.top.id, 'RAISE_REQUESTED = true');
      await t.dc.setBreakpointsRequest({ source: { path: MAIN }, breakpoints: [] });
      await t.dc.continueRequest({ threadId: 1 });
      const raised = await t.stoppedAt('exception', MAIN, lineOf('main.lua', 'raise'));
      const info = await t.dc.exceptionInfoRequest({ threadId: raised.event.threadId ?? 1 });
      assert.match(info.body.description ?? '', /attempt to index/);
      assert.ok('target' in (await t.locals(raised.top.id)));
      // The stop runs inside LÖVE's error handling: an expression that fails still says why.
      const failed = await t.dc
        .evaluateRequest({ expression: 'target.hp', frameId: raised.top.id, context: 'watch' })
        .then(
          (r) => r.body.result,
          (e: unknown) => String(e),
        );
      assert.match(failed, /attempt to index/, failed);
      assert.doesNotMatch(game.stderr, /Error: /, 'stopped before LÖVE handled it');
      await t.dc.continueRequest({ threadId: raised.event.threadId ?? 1 });
      await game.waitForExit(TIMEOUT_MS);
      assert.equal(report(game.stderr), report(plain.stderr));
    });

    it('quits cleanly when the debug console sets QUIT_REQUESTED', async () => {
      const game = await runningGame();
      const t = await newSession();
      const line = lineOf('main.lua', 'update');
      await attach(t, game, { [MAIN]: [{ line }] });
      const stop = await t.stoppedAt('breakpoint', MAIN, line);
      await repl(t, stop.top.id, 'QUIT_REQUESTED = true');
      await t.dc.setBreakpointsRequest({ source: { path: MAIN }, breakpoints: [] });
      await t.dc.continueRequest({ threadId: 1 });
      const exit = await game.waitForExit(TIMEOUT_MS);
      assert.deepEqual(exit, { code: 0, signal: null }, game.describe());
      assert.match(game.stdout, /^game: quit after frame \d+$/m);
      assert.doesNotMatch(game.stderr, /error|traceback/i, game.describe());
      await t.ended();
    });
  });
}

for (const variant of loveVariants()) describeVariant(variant);
