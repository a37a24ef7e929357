// The adapter (out of process, attach mode) against Tencent's upstream LuaPanda.lua, unchanged:
// a game loads upstream's file and calls `require("LuaPanda").start(...)`, and every scenario a
// user meets is driven through DAP under every installed interpreter. Upstream's file is not part
// of this repository (its licence is not ours to redistribute), so the suite runs only when
// LUAPANDA_UPSTREAM_LUA names a copy of upstream's `Debugger/LuaPanda.lua`.
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { luaInterpreters } from '../harness/interpreters';
import type { LuaProcess } from '../harness/luaProcess';
import { scenario } from '../harness/scenario';
import { BreakpointMap, TIMEOUT_MS } from './dapHarness';
import { useDapTest } from './useDapTest';
import { checkGolden, transcript } from './golden';

const UPSTREAM_FILE = process.env.LUAPANDA_UPSTREAM_LUA;
const upstream = scenario('upstream');
const GAME = upstream.file('game.lua');
/** Lines of the game (test/scenarios/upstream/game.lua), by their markers. */
const LINE = Object.fromEntries(
  ['hitsUp', 'value', 'callAdd', 'scoreUp', 'returnTotal', 'callTick'].map((m) => [
    m,
    upstream.line('game.lua', m),
  ]),
) as Record<'hitsUp' | 'value' | 'callAdd' | 'scoreUp' | 'returnTotal' | 'callTick', number>;
/**
 * A table field's variable by its key: upstream shows a string key quoted (`"name"`) in some
 * versions and bare (`name`, 3.3.1) in others.
 */
function isKey(shown: string, key: string): boolean {
  return shown === key || shown === `"${key}"`;
}

function field<V extends { name: string }>(fields: Record<string, V>, key: string): V {
  const found = Object.values(fields).find((v) => isKey(v.name, key));
  assert.ok(found, `no field ${key} among ${Object.keys(fields).join(', ')}`);
  return found;
}

/** Frames of a game that runs long enough (about 4 s) for the scenarios that need it running. */
const LONG_RUN = '200';

if (UPSTREAM_FILE === undefined || UPSTREAM_FILE === '') {
  describe('adapter with upstream LuaPanda.lua', () => {
    it.skip(
      "skipped: set LUAPANDA_UPSTREAM_LUA to a copy of Tencent's upstream Debugger/LuaPanda.lua to run it",
    );
  });
} else {
  describeUpstreamSuite(UPSTREAM_FILE);
}

function describeUpstreamSuite(upstreamFile: string): void {
  /** A folder holding upstream's file as `LuaPanda.lua`, so that `require("LuaPanda")` finds it. */
  let upstreamDir = '';
  before(() => {
    if (!fs.existsSync(upstreamFile)) {
      throw new Error(`LUAPANDA_UPSTREAM_LUA names ${upstreamFile}, which does not exist`);
    }
    upstreamDir = fs.mkdtempSync(path.join(os.tmpdir(), 'luapanda-upstream-'));
    fs.copyFileSync(upstreamFile, path.join(upstreamDir, 'LuaPanda.lua'));
  });
  after(() => {
    if (upstreamDir !== '') fs.rmSync(upstreamDir, { recursive: true, force: true });
  });

  for (const lua of luaInterpreters()) {
    describe(`adapter with upstream LuaPanda.lua on ${lua.command}`, function () {
      this.timeout(45_000);
      const t = useDapTest();
      let breakpointEvents: DebugProtocol.Breakpoint[];
      beforeEach(() => {
        breakpointEvents = [];
        t.dc.on('breakpoint', (event: DebugProtocol.BreakpointEvent) =>
          breakpointEvents.push(event.body.breakpoint),
        );
      });

      const attach = (
        breakpoints: BreakpointMap = {},
        frames?: string,
        attributes: Record<string, unknown> = {},
      ): Promise<LuaProcess> =>
        t.attachGame(lua, GAME, {
          breakpoints,
          attributes,
          args: frames === undefined ? [upstreamDir] : [upstreamDir, frames],
        });

      /** Removes every breakpoint, continues, and checks the game's result once it has ended. */
      async function runToEnd(game: LuaProcess, result: RegExp): Promise<void> {
        await t.dc.setBreakpointsRequest({ source: { path: GAME }, breakpoints: [] });
        await t.dc.continueRequest({ threadId: 1 });
        const exit = await game.waitForExit(TIMEOUT_MS);
        assert.equal(exit.code, 0, game.stderr);
        assert.match(game.stdout, result);
        await t.ended();
      }

      it('stops on a line breakpoint: stack, scopes, variables, nested tables', async () => {
        const game = await attach({ [GAME]: [{ line: LINE.callAdd }] });
        const [bp] = t.breakpointResponses[GAME];
        const stop = await t.stoppedAt('breakpoint', GAME, LINE.callAdd);
        assert.deepEqual(stop.event.hitBreakpointIds, [bp.id]);
        assert.ok(
          breakpointEvents.some((b) => b.id === bp.id && b.verified),
          'verified once the game has it',
        );
        assert.deepEqual(
          stop.frames.map((f) => [f.name, f.line]),
          [
            ['game.lua', LINE.callAdd],
            ['game.lua', LINE.callTick],
          ],
          'upstream names no function: frames are named after their file',
        );
        const [tick, main] = stop.frames;
        const scopes = await t.dc.scopesRequest({ frameId: tick.id });
        assert.deepEqual(
          scopes.body.scopes.map((s) => [s.name, s.expensive]),
          [
            ['Locals', false],
            ['Upvalues', false],
            ['Globals', true],
          ],
        );
        const list = async (ref: number) =>
          Object.fromEntries(
            (await t.dc.variablesRequest({ variablesReference: ref })).body.variables.map((v) => [
              v.name,
              v,
            ]),
          );
        const locals = await list(scopes.body.scopes[0].variablesReference);
        assert.equal(locals.frame.value, '1');
        assert.equal(locals.value.value, '10');
        const upvalues = await list(scopes.body.scopes[1].variablesReference);
        assert.equal(upvalues.add.type, 'function');
        const globals = await list(scopes.body.scopes[2].variablesReference);
        assert.equal(globals.score.value, '0');
        assert.equal(globals.LuaPanda.type, 'table');
        // The caller's frame, and a table three levels deep (strings arrive base64-encoded).
        const mainLocals = await list(
          (await t.dc.scopesRequest({ frameId: main.id })).body.scopes[0].variablesReference,
        );
        assert.equal(mainLocals.frame.value, '1');
        const config = await list(mainLocals.config.variablesReference);
        assert.equal(field(config, 'name').value, '"panda"');
        const nested = await list(field(config, 'nested').variablesReference);
        const listed = await list(field(nested, 'list').variablesReference);
        assert.deepEqual(
          Object.values(listed).map((v) => v.value),
          ['10', '20', '30'],
        );
        checkGolden('upstream', lua.command, await transcript(t.dc, 1, { frames: 2 }));
        await runToEnd(game, /game over\t63\t3\t3/);
      });

      it('maps exact paths and reads plain strings (autoPathMode and base64 off)', async () => {
        const game = await attach({ [GAME]: [{ line: LINE.callAdd }] }, undefined, {
          autoPathMode: false,
          pathCaseSensitivity: true,
          isNeedB64EncodeStr: false,
        });
        const stop = await t.stoppedAt('breakpoint', GAME, LINE.callAdd);
        assert.equal(stop.frames[1].source?.path, GAME);
        const hover = await t.dc.evaluateRequest({
          expression: 'config.name .. "!"',
          frameId: stop.frames[1].id,
          context: 'hover',
        });
        assert.equal(hover.body.result, '"panda!"');
        await runToEnd(game, /game over\t63\t3\t3/);
      });

      it('honours a condition; a hit condition stays unverified, saying why', async () => {
        const game = await attach({
          [GAME]: [
            { line: LINE.value, condition: 'frame == 2' },
            { line: LINE.scoreUp, hitCondition: '2' },
          ],
        });
        const stop = await t.stoppedAt('breakpoint', GAME, LINE.value);
        assert.equal((await t.locals(stop.top.id)).frame, '2');
        const [condition, hit] = t.breakpointResponses[GAME];
        const latest = (id: number | undefined) =>
          breakpointEvents.filter((b) => b.id === id).pop();
        assert.equal(latest(condition.id)?.verified, true);
        assert.equal(latest(hit.id)?.verified, false);
        assert.match(latest(hit.id)?.message ?? '', /does not support hit conditions/);
        // Set while connected, the verdict comes in the response itself.
        const again = await t.dc.setBreakpointsRequest({
          source: { path: GAME },
          breakpoints: [
            { line: LINE.value, condition: 'frame == 3' },
            { line: LINE.scoreUp, hitCondition: '>= 1' },
          ],
        });
        const [kept, refused] = again.body.breakpoints;
        assert.equal(kept.verified, true);
        assert.equal(refused.verified, false);
        assert.match(refused.message ?? '', /does not support hit conditions/);
        // Upstream compiles a condition only when it is hit, and takes a broken one as false: the
        // adapter checks the syntax itself and says so at once, whatever the runtime.
        const broken = await t.dc.setBreakpointsRequest({
          source: { path: GAME },
          breakpoints: [{ line: LINE.value, condition: 'frame ==' }, { line: LINE.returnTotal }],
        });
        assert.equal(broken.body.breakpoints[0].verified, false);
        assert.match(broken.body.breakpoints[0].message ?? '', /condition/i);
        await t.dc.continueRequest({ threadId: 1 });
        await t.stoppedAt('breakpoint', GAME, LINE.returnTotal);
        await t.dc.setBreakpointsRequest({
          source: { path: GAME },
          breakpoints: [{ line: LINE.value, condition: 'frame == 3' }],
        });
        await t.dc.continueRequest({ threadId: 1 });
        const third = await t.stoppedAt('breakpoint', GAME, LINE.value);
        assert.equal((await t.locals(third.top.id)).frame, '3');
        await runToEnd(game, /game over\t63\t3\t3/);
      });

      it('evaluates for watch, hover and the REPL, and sets a local', async () => {
        const game = await attach({ [GAME]: [{ line: LINE.callAdd }] });
        const stop = await t.stoppedAt('breakpoint', GAME, LINE.callAdd);
        const [tick, main] = stop.frames;
        const evaluate = async (expression: string, context: string, frameId = tick.id) =>
          (await t.dc.evaluateRequest({ expression, context, frameId })).body;
        assert.equal((await evaluate('value + 1', 'watch')).result, '11');
        assert.equal((await evaluate('config.name', 'hover', main.id)).result, '"panda"');
        const table = await evaluate('config.nested', 'watch', main.id);
        assert.ok(table.variablesReference > 0, 'a table can be expanded');
        const fields = await t.dc.variablesRequest({
          variablesReference: table.variablesReference,
        });
        assert.ok(
          fields.body.variables.some((v) => isKey(v.name, 'level') && v.value === '2'),
          JSON.stringify(fields.body.variables),
        );
        assert.equal((await evaluate('value * 3', 'repl')).result, '30');
        // Upstream runs hover and watch expressions as they are: this call counts as a hit.
        assert.equal((await evaluate('add(1, 2)', 'hover')).result, '3');
        // Upstream would assign a variable of the field's name: the adapter refuses, saying so.
        await assert.rejects(
          t.dc.setVariableRequest({
            variablesReference: table.variablesReference,
            name: 'level',
            value: '5',
          }),
          /cannot assign table fields/,
        );
        // Refused, in our words or (3.3.1's REPL) in upstream's own ("输入错误指令…").
        const refused = /Could not evaluate|输入错误指令/;
        await assert.rejects(evaluate('nosuch.field', 'repl'), refused);
        // A watch upstream cannot evaluate: refused, or (3.3.1) its own text marked as failed.
        const watch = await evaluate('value +', 'watch').catch((e: Error) => e);
        if (watch instanceof Error) assert.match(watch.message, refused);
        else {
          assert.deepEqual(
            watch.presentationHint?.attributes,
            ['failedEvaluation'],
            JSON.stringify(watch),
          );
        }
        // setVariable on a local of the stopped frame: tick(1) then returns 101, not 11.
        const scopes = await t.dc.scopesRequest({ frameId: tick.id });
        const set = await t.dc.setVariableRequest({
          variablesReference: scopes.body.scopes[0].variablesReference,
          name: 'value',
          value: '100',
        });
        assert.equal(set.body.value, '100');
        assert.equal((await t.locals(tick.id)).value, '100');
        await runToEnd(game, /game over\t153\t4\t3/);
      });

      it('steps in, out and over, and continues to the next hit', async () => {
        const game = await attach({ [GAME]: [{ line: LINE.callAdd }] });
        await t.stoppedAt('breakpoint', GAME, LINE.callAdd);
        await t.dc.stepInRequest({ threadId: 1 });
        const into = await t.stoppedAt('step', GAME, LINE.hitsUp);
        assert.equal(into.frames.length, 3, 'add, tick and the main chunk');
        await t.dc.stepOutRequest({ threadId: 1 });
        await t.stoppedAt('step', GAME, LINE.scoreUp);
        await t.dc.nextRequest({ threadId: 1 });
        await t.stoppedAt('step', GAME, LINE.returnTotal);
        await t.dc.continueRequest({ threadId: 1 });
        const next = await t.stoppedAt('breakpoint', GAME, LINE.callAdd);
        assert.equal((await t.locals(next.top.id)).frame, '2');
        await runToEnd(game, /game over\t63\t3\t3/);
      });

      it('prints logpoints as upstream does (no interpolation), without stopping', async () => {
        const game = await attach({
          [GAME]: [{ line: LINE.scoreUp, logMessage: 'score is {score}' }],
        });
        const exit = await game.waitForExit(TIMEOUT_MS);
        assert.equal(exit.code, 0, game.stderr);
        await t.ended();
        assert.equal(t.output.match(/score is \{score\}/g)?.length, 3, t.output);
      });

      it('binds a breakpoint set while the game runs', async () => {
        const game = await attach({}, LONG_RUN);
        const response = await t.dc.setBreakpointsRequest({
          source: { path: GAME },
          breakpoints: [{ line: LINE.scoreUp }],
        });
        assert.equal(response.body.breakpoints[0].verified, true);
        const stop = await t.stoppedAt('breakpoint', GAME, LINE.scoreUp);
        assert.ok(Number((await t.locals(stop.top.id)).frame) >= 1);
        await t.dc.disconnectRequest({});
        const exit = await game.waitForExit(TIMEOUT_MS);
        assert.equal(exit.code, 0, game.stderr);
        assert.match(game.stdout, /game over/);
      });

      it('pauses a running game through a step-in, as upstream allows', async () => {
        const game = await attach({}, LONG_RUN);
        await t.dc.pauseRequest({ threadId: 1 });
        // Paused in the game's own code (never inside LuaPanda.lua, even right after attaching).
        const stop = await t.stoppedAt('pause', GAME);
        assert.ok(stop.frames.every((f) => f.source?.path === GAME));
        await t.dc.continueRequest({ threadId: 1 });
        await t.dc.disconnectRequest({});
        const exit = await game.waitForExit(TIMEOUT_MS);
        assert.equal(exit.code, 0, game.stderr);
      });

      it('detaches from a stopped game, which runs on to its end', async () => {
        const game = await attach({ [GAME]: [{ line: LINE.callAdd }] });
        await t.stoppedAt('breakpoint', GAME, LINE.callAdd);
        await t.dc.disconnectRequest({});
        await t.ended();
        const exit = await game.waitForExit(TIMEOUT_MS);
        assert.equal(exit.code, 0, game.stderr);
        assert.match(game.stdout, /game over\t63\t3\t3/);
      });

      it('ends cleanly, saying so, when the game dies', async () => {
        const game = await attach({ [GAME]: [{ line: LINE.callAdd }] });
        await t.stoppedAt('breakpoint', GAME, LINE.callAdd);
        game.kill();
        await t.ended();
        assert.match(t.output, /closed the debug connection/);
        const threads = await t.dc.threadsRequest();
        assert.equal(threads.body.threads.length, 1);
      });
    });
  }
}
