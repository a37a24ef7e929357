// The adapter out of process (node out/src/cli/dap.js) with DebugClient, launching real Lua
// programs on every installed interpreter: one fixture program per scenario.
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { nativeBuildFile } from '../../src/session/link/nativeBuilds';
import { NATIVE_DIR, luaInterpreters, nativeAbiOf } from '../harness/interpreters';
import { type Scenario, scenario } from '../harness/scenario';
import { DapTest, fixture, markerLine, rawRequest } from './dapHarness';
import { useDapTest } from './useDapTest';
import { EventRecord } from './eventRecord';
import { checkGolden, transcript } from './golden';

const recursion = scenario('recursion');
const coroutines = scenario('coroutines');
const samename = scenario('samename');
const variables = scenario('variables');
const exceptions = scenario('exceptions');
const output = scenario('output');

for (const lua of luaInterpreters()) {
  describe(`adapter launch on ${lua.command}`, function () {
    this.timeout(30_000);
    const t = useDapTest();

    const launch = (file: string, options: Parameters<DapTest['launch']>[3] = {}, extra = {}) =>
      t.launch(lua.command, file, extra, options);
    /** Launches a scenario with the configuration of its launch.json. */
    const launchScenario = (
      sc: Scenario,
      options: Parameters<DapTest['start']>[2] = {},
      extra: Record<string, unknown> = {},
    ) => t.start('launch', { ...sc.configuration('Launch main.lua', lua), ...extra }, options);

    it('stops on a line breakpoint, verified, with the hit breakpoint id', async () => {
      const file = fixture('breakpoints.lua');
      await launch(file, { breakpoints: { [file]: [{ line: 8 }] } });
      const [bp] = t.breakpointResponses[file];
      const stop = await t.stoppedAt('breakpoint', file, 8);
      assert.deepEqual(stop.event.hitBreakpointIds, [bp.id]);
      assert.equal((await t.locals(stop.top.id)).i, '1');
      await t.dc.continueRequest({ threadId: stop.event.threadId ?? 1 });
      await t.stoppedAt('breakpoint', file, 8);
    });

    it('maps exact paths too (autoPathMode off, case-sensitive, no base64)', async () => {
      const file = fixture('breakpoints.lua');
      await launch(
        file,
        { breakpoints: { [file]: [{ line: 3 }] } },
        { autoPathMode: false, pathCaseSensitivity: true, isNeedB64EncodeStr: false },
      );
      const stop = await t.stoppedAt('breakpoint', file, 3);
      assert.equal(stop.frames[1].source?.path, file);
      const hover = await t.dc.evaluateRequest({
        expression: '"x" .. a',
        frameId: stop.top.id,
        context: 'hover',
      });
      assert.equal(hover.body.result, '"x0"');
    });

    it('honours conditions and hit conditions', async () => {
      const file = fixture('breakpoints.lua');
      await launch(file, {
        breakpoints: {
          [file]: [
            { line: 3, hitCondition: '== 3' },
            { line: 8, condition: 'i == 4' },
          ],
        },
      });
      const first = await t.stoppedAt('breakpoint', file, 3);
      assert.deepEqual(await t.locals(first.top.id), { a: '3', b: '3' });
      await t.dc.continueRequest({ threadId: 1 });
      const second = await t.stoppedAt('breakpoint', file, 8);
      assert.equal((await t.locals(second.top.id)).i, '4');
    });

    it('reports a condition that does not compile as unverified, with the reason', async () => {
      const file = fixture('breakpoints.lua');
      await launch(file, {
        breakpoints: { [file]: [{ line: 8, condition: 'i ==' }, { line: 10 }] },
      });
      const [bad] = t.breakpointResponses[file];
      assert.equal(bad.verified, false);
      assert.ok(bad.message && bad.message.length > 0, 'a message says why');
      await t.stoppedAt('breakpoint', file, 10);
    });

    it('prints logpoints with {expr} interpolated, without stopping', async () => {
      const file = fixture('breakpoints.lua');
      await launch(file, {
        breakpoints: { [file]: [{ line: 10, logMessage: 'total is {total}' }] },
      });
      await t.ended();
      assert.match(t.output, /total is 15/);
      assert.match(t.output, /total\t15/);
    });

    it('steps through recursion: in, over, out, with a golden transcript', async () => {
      const file = recursion.file('main.lua');
      const record = new EventRecord(t.dc);
      const base = recursion.line('main.lua', 'base');
      await launchScenario(recursion, { breakpoints: { [file]: [{ line: base }] } });
      const stop = await t.stoppedAt('breakpoint', file, base);
      assert.equal(stop.frames.filter((f) => f.name === 'fact').length, 3, 'three fact frames');
      record.stopState(await transcript(t.dc, 1, { frames: 2 }));
      await t.dc.stepOutRequest({ threadId: 1 });
      const out = await t.stoppedAt('step', file);
      assert.equal(out.top.line, recursion.line('main.lua', 'multiply'));
      assert.equal(out.frames.filter((f) => f.name === 'fact').length, 2);
      await t.dc.nextRequest({ threadId: 1 });
      await t.stoppedAt('step', file);
      await t.dc.continueRequest({ threadId: 1 });
      await t.ended();
      assert.match(t.output, /fact\t6/);
      checkGolden('recursion', lua.command, record.text());
    });

    it('steps into a function', async () => {
      const file = recursion.file('main.lua');
      const call = recursion.line('main.lua', 'call');
      await launchScenario(recursion, { breakpoints: { [file]: [{ line: call }] } });
      await t.stoppedAt('breakpoint', file, call);
      await t.dc.stepInRequest({ threadId: 1 });
      const inside = await t.stoppedAt('step', file, recursion.line('main.lua', 'test'));
      assert.equal(inside.top.name, 'fact');
    });

    it('stops inside a coroutine and shows the thread that stopped, with a golden transcript', async () => {
      const file = coroutines.file('main.lua');
      const record = new EventRecord(t.dc);
      const yieldLine = coroutines.line('main.lua', 'yield');
      await launchScenario(coroutines, { breakpoints: { [file]: [{ line: yieldLine }] } });
      const stop = await t.stoppedAt('breakpoint', file, yieldLine);
      const threads = await t.dc.threadsRequest();
      assert.ok(threads.body.threads.some((th) => th.id === stop.event.threadId));
      assert.equal((await t.locals(stop.top.id)).label, '"job1"');
      record.stopState(await transcript(t.dc, stop.event.threadId ?? 1));
      await t.dc.continueRequest({ threadId: stop.event.threadId ?? 1 });
      const again = await t.stoppedAt('breakpoint', file, yieldLine);
      assert.equal((await t.locals(again.top.id)).label, '"job2"');
      // To the end, so that the recorded sequence ends where the session does.
      await t.dc.continueRequest({ threadId: again.event.threadId ?? 1 });
      await t.ended();
      checkGolden('coroutines', lua.command, record.text());
    });

    it('steps over a yield into the resumer, and steps back into the coroutine', async () => {
      const file = coroutines.file('main.lua');
      const yieldLine = coroutines.line('main.lua', 'yield');
      await launchScenario(coroutines, { breakpoints: { [file]: [{ line: yieldLine }] } });
      const inside = await t.stoppedAt('breakpoint', file, yieldLine);
      assert.notEqual(inside.event.threadId, 1, 'the coroutine is its own thread');
      await t.dc.nextRequest({ threadId: inside.event.threadId ?? 1 });
      const resumer = await t.stoppedAt('step', file, coroutines.line('main.lua', 'afterResume'));
      assert.equal(resumer.event.threadId, 1);
      // The loop reaches the resume again (lines differ by interpreter), then steps into it.
      let stop = resumer;
      for (let i = 0; i < 6 && stop.event.threadId === 1; i++) {
        await t.dc.stepInRequest({ threadId: 1 });
        stop = await t.stoppedAt('step', file);
      }
      assert.equal(stop.event.threadId, inside.event.threadId, 'back in the same coroutine');
      assert.equal(stop.top.line, coroutines.line('main.lua', 'loop'));
    });

    it('stops on an uncaught error with the error text', async () => {
      const file = exceptions.file('uncaughtError.lua');
      await launch(file, { exceptionFilters: ['uncaught'] });
      const stop = await t.stoppedAt('exception', file, 3);
      assert.match(stop.event.text ?? '', /attempt to index/);
      const info = await t.dc.exceptionInfoRequest({ threadId: stop.event.threadId ?? 1 });
      assert.match(info.body.description ?? '', /attempt to index/);
    });

    it('stops on a caught error only with the caught filter', async () => {
      const file = exceptions.file('caughtError.lua');
      await launch(file, { exceptionFilters: ['uncaught', 'caught'] });
      const stop = await t.stoppedAt('exception', file, 3);
      assert.match(stop.event.text ?? '', /bad value 7/);
      const info = await t.dc.exceptionInfoRequest({ threadId: stop.event.threadId ?? 1 });
      assert.equal(info.body.breakMode, 'always');
      // Our extension: where the program's pcall catches it (the autopsy of the MCP tools).
      const at = (info.body as { caughtAt?: { source: { path?: string }; line: number } }).caughtAt;
      assert.equal(at?.line, exceptions.line('caughtError.lua', 'pcall'));
      assert.match(at?.source.path ?? '', /caughtError\.lua$/);
      await t.dc.continueRequest({ threadId: 1 });
      await t.ended();
      assert.match(t.output, /caught\tfalse\t.*bad value 7/);
    });

    it("stops on a caught error when its message contains the filter's condition", async () => {
      const file = exceptions.file('caughtError.lua');
      await launch(file, {
        exceptionFilters: ['uncaught'],
        exceptionFilterOptions: [{ filterId: 'caught', condition: 'bad value 7' }],
      });
      assert.deepEqual(t.exceptionFilterResponse, [{ verified: true }, { verified: true }]);
      const stop = await t.stoppedAt('exception', file, 3);
      assert.match(stop.event.text ?? '', /bad value 7/);
      await t.dc.continueRequest({ threadId: 1 });
      await t.ended();
    });

    it("runs past a caught error whose message does not contain the filter's condition", async () => {
      const file = exceptions.file('caughtError.lua');
      await launch(file, {
        exceptionFilters: [],
        exceptionFilterOptions: [
          { filterId: 'caught', condition: 'bad value 8' },
          { filterId: 'everything', condition: 'x' },
        ],
      });
      assert.equal(t.exceptionFilterResponse?.[1].verified, false, 'no such filter');
      await t.ended(); // (a stop would hold the program: nothing here continues it)
      assert.match(t.output, /caught\tfalse\t.*bad value 7/);
    });

    it('runs past a caught error with the default (uncaught) filter', async () => {
      const file = exceptions.file('caughtError.lua');
      await launch(file, { exceptionFilters: ['uncaught'] });
      await t.ended();
      assert.match(t.output, /caught\tfalse/);
    });

    it('pages a huge table in 1-based index ranges', async () => {
      const file = variables.file('hugeTable.lua');
      await launch(file, { breakpoints: { [file]: [{ line: 10 }] } });
      const stop = await t.stoppedAt('breakpoint', file, 10);
      const scopes = await t.dc.scopesRequest({ frameId: stop.top.id });
      const locals = await t.dc.variablesRequest({
        variablesReference: scopes.body.scopes[0].variablesReference,
      });
      const local = (name: string) =>
        locals.body.variables.find((v) => v.name === name) as DebugProtocol.Variable;
      const children = async (ref: number) =>
        (await t.dc.variablesRequest({ variablesReference: ref })).body.variables;
      // 200 entries: two ranges, labelled as Lua counts, each holding what its label says.
      const list = local('list');
      assert.match(list.value, /^\{1, 2, 3, .*, … \(200\)\}$/);
      assert.equal(list.indexedVariables, undefined, 'no client-made ranges (labelled from 0)');
      const listRanges = await children(list.variablesReference);
      assert.deepEqual(
        listRanges.map((v) => v.name),
        ['[1..100]', '[101..200]'],
      );
      const second = await children(listRanges[1].variablesReference);
      assert.equal(second.length, 100);
      assert.deepEqual(
        [second[0].name, second[0].value, second[99].name, second[99].value],
        ['[101]', '101', '[200]', '200'],
      );
      // 100001 children: ranges of 10000, then of 100; the named field comes after the array.
      const huge = local('huge');
      assert.ok(huge.variablesReference > 0);
      assert.match(huge.value, /… \(100000\)\}$/);
      const top = await children(huge.variablesReference);
      assert.equal(top.length, 11);
      assert.deepEqual([top[0].name, top[10].name], ['[1..10000]', '[100001..100001]']);
      const hundreds = await children(top[0].variablesReference);
      assert.deepEqual([hundreds.length, hundreds[1].name], [100, '[101..200]']);
      const items = await children(hundreds[1].variablesReference);
      assert.deepEqual([items[0].name, items[0].value], ['[101]', '202']);
      assert.deepEqual(
        (await children(top[10].variablesReference)).map((v) => [v.name, v.value]),
        [['name', '"huge"']],
      );
      // A client that asks for a page gets the children themselves.
      const page = await t.dc.variablesRequest({
        variablesReference: huge.variablesReference,
        filter: 'indexed',
        start: 50000,
        count: 3,
      });
      assert.deepEqual(
        page.body.variables.map((v) => [v.name, v.value]),
        [
          ['[50001]', '100002'],
          ['[50002]', '100004'],
          ['[50003]', '100006'],
        ],
      );
    });

    it('tells same-name files in different folders apart', async () => {
      const main = samename.file('main.lua');
      const utilB = samename.file('b', 'util.lua');
      const nameLine = samename.line('b/util.lua', 'name');
      await launchScenario(samename, { breakpoints: { [utilB]: [{ line: nameLine }] } });
      const stop = await t.stoppedAt('breakpoint', utilB, nameLine);
      assert.equal(stop.frames[1].source?.path, main);
      await t.dc.continueRequest({ threadId: 1 });
      await t.ended();
      assert.match(t.output, /a\tb/);
    });

    it('keeps breakpoints in both same-name files and stops in each', async () => {
      const utilA = samename.file('a', 'util.lua');
      const utilB = samename.file('b', 'util.lua');
      const lineA = samename.line('a/util.lua', 'name');
      const lineB = samename.line('b/util.lua', 'name');
      await launchScenario(samename, {
        breakpoints: { [utilA]: [{ line: lineA }], [utilB]: [{ line: lineB }] },
      });
      await t.stoppedAt('breakpoint', utilA, lineA);
      await t.dc.continueRequest({ threadId: 1 });
      await t.stoppedAt('breakpoint', utilB, lineB);
      await t.dc.continueRequest({ threadId: 1 });
      await t.ended();
      assert.match(t.output, /a\tb/);
    });

    it('streams stdout and stderr as output events', async () => {
      await launch(fixture('output.lua'));
      await t.ended();
      assert.match(t.output, /hello from lua\n/);
      assert.match(t.output, /a warning on stderr/);
      assert.match(t.output, /héllo wörld ✓/);
      assert.match(t.output, /no newline at the end/);
    });

    for (const args of [[], ['line']]) {
      it(`gets the program's lines whole, as a terminal does${args.length ? ' (it sets line buffering itself)' : ''}`, async () => {
        // Unbuffered, a line written in parts reached the reader in parts; and a program that
        // asked for line buffering itself kept a one-byte buffer (glibc), which cut every line.
        await launch(output.file('lines.lua'), {}, { args });
        await t.ended();
        const stdout = t.outputs.filter((o) => o.category === 'stdout').map((o) => o.text);
        assert.deepEqual(
          stdout.join('').split('\n').filter(Boolean),
          [1, 2, 3].map((i) => `line ${i}, the first part; the second part`),
        );
        const cut = stdout.filter((text) => !text.endsWith('\n'));
        assert.deepEqual(cut, [], 'every output event holds whole lines');
      });
    }

    it('loads the native accelerator build of the interpreter without any set-up', async function () {
      const build = nativeBuildFile(NATIVE_DIR, nativeAbiOf(lua));
      if (!fs.existsSync(build) && process.env.CI !== 'true') this.skip(); // CI requires it
      await launch(fixture('native.lua'));
      await t.ended();
      assert.match(t.output, /native accelerator: luapanda_native\d\d in use/);
    });

    it('inspects, evaluates and sets variables, with a golden transcript', async () => {
      const file = variables.file('main.lua');
      const record = new EventRecord(t.dc);
      const printLine = variables.line('main.lua', 'print');
      await launchScenario(variables, { breakpoints: { [file]: [{ line: printLine }] } });
      const stop = await t.stoppedAt('breakpoint', file, printLine);
      record.stopState(await transcript(t.dc, 1));
      const frameId = stop.top.id;
      const watch = await t.dc.evaluateRequest({
        expression: 'config.nested.list[2] + count',
        frameId,
        context: 'watch',
      });
      assert.equal(watch.body.result, '62');
      const hover = await t.dc.evaluateRequest({ expression: 'name', frameId, context: 'hover' });
      assert.equal(hover.body.result, '"panda"');
      assert.equal(
        (await t.dc.evaluateRequest({ expression: 'config', frameId, context: 'hover' })).body
          .result,
        '{nested = {…}, size = 3}',
      );
      // A watch or hover that fails answers with the error in place: no failed request (which VS
      // Code may turn into a notification), no children, marked as no value.
      for (const context of ['watch', 'hover']) {
        const failed = await t.dc.evaluateRequest({ expression: 'nosuch.field', frameId, context });
        assert.ok(failed.success);
        assert.match(failed.body.result, /^\(eval\):1: attempt to index .*nosuch/);
        assert.equal(failed.body.variablesReference, 0);
        assert.deepEqual(failed.body.presentationHint?.attributes, ['failedEvaluation']);
      }
      // Hovering a keyword shows nothing (and says nothing).
      const keyword = await rawRequest(t.dc, 'evaluate', {
        expression: 'local',
        frameId,
        context: 'hover',
      });
      assert.deepEqual([keyword.success, keyword.body?.error?.showUser], [false, false]);
      // A REPL error is printed once by the console: one failed response, its message once.
      const replError = await rawRequest(t.dc, 'evaluate', {
        expression: 'nosuch.field',
        frameId,
        context: 'repl',
      });
      assert.deepEqual([replError.success, replError.body?.error?.showUser], [false, false]);
      const shown = String(replError.message);
      assert.match(shown, /^\(eval\):1: attempt to index .*nosuch/);
      assert.equal(shown.split('nosuch').length, 2, shown);
      // Every result of an expression, and nothing for a statement.
      const several = await t.dc.evaluateRequest({
        expression: 'count, ratio',
        frameId,
        context: 'watch',
      });
      assert.deepEqual([several.body.result, several.body.type], ['42, 0.5', 'number, number']);
      const parts = await t.dc.variablesRequest({
        variablesReference: several.body.variablesReference,
      });
      assert.deepEqual(
        parts.body.variables.map((v) => [v.name, v.value]),
        [
          ['[1]', '42'],
          ['[2]', '0.5'],
        ],
      );
      const printed = await t.dc.evaluateRequest({
        expression: 'print("hi")',
        frameId,
        context: 'repl',
      });
      assert.deepEqual([printed.body.result, printed.body.variablesReference], ['', 0]);
      await t.waitForOutput(/^hi$/m);
      const repl = await t.dc.evaluateRequest({
        expression: 'count = count + 1',
        frameId,
        context: 'repl',
      });
      assert.equal(repl.body.result, '');
      const scopes = await t.dc.scopesRequest({ frameId });
      const set = await t.dc.setVariableRequest({
        variablesReference: scopes.body.scopes[0].variablesReference,
        name: 'name',
        value: '"bamboo"',
      });
      assert.equal(set.body.value, '"bamboo"');
      const after = await t.locals(frameId);
      assert.equal(after.name, '"bamboo"');
      assert.equal(after.count, '43');
      await t.dc.continueRequest({ threadId: 1 });
      await t.ended();
      assert.match(t.output, /43\t0\.5\tbamboo/);
      checkGolden('variables', lua.command, record.text());
    });

    it('maps breakpoints in a file with CRLF line endings', async () => {
      const file = fixture('crlf.lua');
      await launch(file, { breakpoints: { [file]: [{ line: 4 }] } });
      const stop = await t.stoppedAt('breakpoint', file, 4);
      assert.equal((await t.locals(stop.top.id)).b, '2');
    });

    it('stops on entry when asked', async () => {
      const file = recursion.file('main.lua');
      await launchScenario(recursion, {}, { stopOnEntry: true });
      const stop = await t.stoppedAt('entry', file);
      assert.ok(stop.top.line >= 1);
    });

    it('pauses a running program and stops it on terminate', async () => {
      const file = fixture('busyLoop.lua');
      await launch(file);
      await t.dc.pauseRequest({ threadId: 1 });
      const stop = await t.stoppedAt('pause', file);
      // A pause that arrives before the loop starts takes effect at the program's first line.
      assert.ok([2, 3, 4, 5, 7, 8, 9].includes(stop.top.line), `paused on line ${stop.top.line}`);
      await t.dc.terminateRequest({});
      await t.ended();
    });

    it("answers a view's late requests about a stop that ended quietly (no notification)", async () => {
      // VS Code reads a stop's stack, scopes and variables after the stopped event; an agent may
      // resume the program meanwhile. Those late requests fail without `showUser`.
      const file = fixture('busyLoop.lua');
      await launch(file);
      await t.dc.pauseRequest({ threadId: 1 });
      const stop = await t.stoppedAt('pause', file);
      const frameId = stop.top.id;
      const scopes = await t.dc.scopesRequest({ frameId });
      const reference = scopes.body.scopes[0].variablesReference;
      await t.dc.continueRequest({ threadId: 1 });
      for (const [command, args] of [
        ['stackTrace', { threadId: 1 }],
        ['scopes', { frameId }],
        ['variables', { variablesReference: reference }],
      ] as const) {
        const late = await rawRequest(t.dc, command, args);
        assert.equal(late.success, false, `${command} after the stop ended`);
        assert.equal(late.body?.error?.showUser, false, `${command}: ${late.message}`);
      }
      await t.dc.terminateRequest({});
      await t.ended();
    });

    it(
      lua.isLuaJIT
        ? "pauses a loop running compiled (the accelerator and LuaJIT's profiler reach it), inside the loop"
        : 'pauses a loop that LuaJIT would compile, inside the loop',
      async () => {
        const file = fixture('compiledLoop.lua');
        await launch(file);
        await t.waitForOutput(/spinning/);
        // The program prints "spinning" and then enters the loop: a program held up in between
        // (a loaded machine) is paused at the loop function's first line, which is right too.
        // Under LuaJIT the loop runs compiled, with no debug hook: the native accelerator's
        // signal makes it leave its trace through the profiler's line checks (jitwake.lua).
        const enter = markerLine(file, 'enter');
        await t.dc.pauseRequest({ threadId: 1 });
        const stop = await t.stoppedAt('pause', file);
        const loop = [enter, markerLine(file, 'spin') - 1, markerLine(file, 'spin')];
        assert.ok(loop.includes(stop.top.line), `paused on line ${stop.top.line}`);
        assert.equal(stop.frames[1].line, markerLine(file, 'long'));
        await t.dc.terminateRequest({});
        await t.ended();
      },
    );

    it('refuses a program with a syntax error, saying where', async () => {
      const file = fixture('syntaxError.lua');
      await assert.rejects(launch(file), (error: Error) => {
        assert.match(error.message, /syntax error/i);
        assert.match(error.message, /syntaxError\.lua:2/);
        return true;
      });
    });

    it('runs a program without debugging (noDebug): output, no stops, the exit code', async () => {
      const file = fixture('breakpoints.lua');
      await launch(file, { breakpoints: { [file]: [{ line: 8 }] } }, { noDebug: true });
      assert.equal((await t.exited).body.exitCode, 0);
      await t.ended();
      assert.match(t.output, /total\t15/);
    });

    it('refuses a program that does not exist', async () => {
      await assert.rejects(launch(fixture('no-such-file.lua')), /does not exist/);
      await t.ended();
    });
  });
}

describe('adapter launch errors', () => {
  const t = useDapTest();

  it('names a working folder that does not exist', async () => {
    await assert.rejects(
      t.start('launch', { program: fixture('output.lua'), cwd: fixture('no-such-folder') }),
      /working folder .* does not exist/,
    );
  });
});
