/**
 * Function breakpoints in the bundled runtime (setFunctionBreakPoint): every name form, stops on
 * entry only (once per call, parameters visible), conditions, hit conditions, logpoints, names
 * that bind once their code is loaded (functionBreakpointsBound), rejected names, and removal.
 */
import { strict as assert } from 'node:assert';
import { runtimeVariants } from '../harness/interpreters';
import { IdeRequestInfo, LuaNotification } from '../../src/protocol';
import { Session, closeAll, finish, line, lineOf, startSession, topOf } from './helpers';

type Stop = Extract<LuaNotification, { kind: 'stop' }>;
type Names = IdeRequestInfo<'setFunctionBreakPoint'>['names'];

const at = (marker: string, file = 'fnbp.lua') => lineOf(file, marker);

async function localsOf(s: Session, stop: Stop): Promise<Record<string, string>> {
  const vars = await s.ide.connection.request('getVariable', {
    varRef: '10000',
    stackId: String(topOf(stop.stack).index),
  });
  return Object.fromEntries(vars.map((v) => [v.name, v.value]));
}

function hitFunctions(stop: Stop): string[] {
  return 'hitFunctions' in stop.info ? (stop.info.hitFunctions ?? []) : [];
}

/** Continues from stop to stop until the program ends; what each stop showed. */
async function stopsUntilEnd(s: Session) {
  const seen: { names: string[]; line: number; file: string; locals: Record<string, string> }[] =
    [];
  for (;;) {
    // (The connection closes when the program ends: that ends the wait.)
    const next = await s.ide.next((n) => n.kind === 'stop', 10_000).catch(() => null);
    if (!next || next.kind !== 'stop') break;
    assert.equal(next.cmd, 'stopOnBreakpoint');
    const top = topOf(next.stack);
    seen.push({
      names: hitFunctions(next),
      line: top.line,
      file: top.file,
      locals: await localsOf(s, next),
    });
    await s.ide.connection.request('continue', {});
  }
  return seen;
}

/** Starts fnbp.lua stopped at @ready (everything defined, nothing called), sets `names`. */
async function readyWith(lua: Parameters<typeof startSession>[0], names: Names) {
  const s = await startSession(lua, 'fnbp.lua', {
    breakpoints: { 'fnbp.lua': [line(at('ready'))] },
  });
  await s.ide.nextStop('stopOnBreakpoint');
  const answer = await s.ide.connection.request('setFunctionBreakPoint', { names });
  return { s, results: answer.results };
}

for (const lua of runtimeVariants()) {
  describe(`runtime function breakpoints (${lua.label})`, function () {
    this.timeout(20_000);
    afterEach(closeAll);

    it('set before the program runs: pending, then bound as their code loads; stops on entry with the parameters', async () => {
      const s = await startSession(lua, 'fnbp.lua', {
        functionBreakpoints: [
          { name: 'Entity.new' },
          { name: 'Entity:update', hitCondition: '== 2' },
          { name: 'tick', condition: 'n == 2' },
          { name: ' love.update ' },
          { name: 'util.helper' },
          { name: 'fnbp_util.helper' },
          { name: 'Cart:total' },
        ],
      });
      assert.ok(s.reply.features?.includes('functionBreakpoints'));
      const results = s.functionResults ?? [];
      assert.deepEqual(
        results.map((r) => [r.name, r.verified]),
        results.map((r) => [r.name, false]),
      );
      assert.equal(results[4].message, 'not found yet: no loaded function is named util.helper');
      const stops = await stopsUntilEnd(s);
      assert.deepEqual(
        stops.map((x) => [x.names.join(','), x.line]),
        [
          ['Entity.new', at('new')],
          ['Entity:update', at('update')],
          ['tick', at('tick')],
          [' love.update ', at('love')],
          // `util` is a local of the program: the module's own name finds it.
          ['fnbp_util.helper', at('helper', 'fnbp_util.lua')],
          ['Cart:total', at('total', 'fnbp_shop.lua')],
        ],
      );
      assert.equal(stops[0].locals.name, '"hero"');
      assert.equal(stops[1].locals.dt, '2');
      assert.equal(stops[2].locals.n, '2');
      assert.equal(stops[4].locals.n, '5');
      assert.equal(stops[5].file, 'fnbp_shop.lua');
      assert.match(await finish(s), /total\t30\t6/);
      const bound = s.ide.notifications.flatMap((n) =>
        n.kind === 'functionsBound' ? n.results : [],
      );
      assert.deepEqual(
        bound.map((r) => [r.name, r.verified, r.file, r.line]),
        [
          ['Entity.new', true, 'fnbp.lua', at('new')],
          ['Entity:update', true, 'fnbp.lua', at('update')],
          ['tick', true, 'fnbp.lua', at('tick')],
          [' love.update ', true, 'fnbp.lua', at('love')],
          ['fnbp_util.helper', true, 'fnbp_util.lua', at('helper', 'fnbp_util.lua')],
          ['Cart:total', true, 'fnbp_shop.lua', at('total', 'fnbp_shop.lua')],
        ],
      );
    });

    it('set while stopped: verified with file and line at once; rejects what cannot bind', async () => {
      const { s, results } = await readyWith(lua, [
        { name: 'Entity:new' },
        { name: 'Entity:' },
        { name: 'a:b.c' },
        { name: 'print' },
        { name: 'Entity' },
        { name: 'tick', condition: 'n ==' },
        { name: 'tick', hitCondition: 'often' },
      ]);
      assert.deepEqual(
        [results[0].verified, results[0].file, results[0].line],
        [true, 'fnbp.lua', at('new')],
      );
      assert.ok(results.slice(1).every((r) => !r.verified));
      assert.match(results[1].message ?? '', /is not a Lua function name/);
      assert.match(results[2].message ?? '', /is not a Lua function name/);
      assert.match(results[3].message ?? '', /print is a C function/);
      assert.match(results[4].message ?? '', /Entity is a table, not a function/);
      assert.match(results[5].message ?? '', /condition 'n =='/);
      assert.match(results[6].message ?? '', /invalid hit condition/);
      await s.ide.connection.request('continue', {});
      const stops = await stopsUntilEnd(s);
      assert.deepEqual(
        stops.map((x) => [x.names.join(','), x.line]),
        [['Entity:new', at('new')]],
      );
      await finish(s);
    });

    it('stops once per call where the first line is a loop head; logs on entry; removed, it stops no more', async () => {
      const { s } = await readyWith(lua, [
        { name: 'tick' },
        { name: 'Entity:update', logMessage: 'update dt={dt} x={self.x}' },
      ]);
      await s.ide.connection.request('continue', {});
      const first = await s.ide.nextStop('stopOnBreakpoint');
      assert.equal(topOf(first.stack).line, at('tick'));
      assert.equal((await localsOf(s, first)).n, '3');
      await s.ide.connection.request('continue', {});
      const second = await s.ide.nextStop('stopOnBreakpoint');
      assert.equal(topOf(second.stack).line, at('tick'));
      assert.equal((await localsOf(s, second)).n, '2');
      const removed = await s.ide.connection.request('setFunctionBreakPoint', { names: [] });
      assert.deepEqual(removed.results, []);
      await s.ide.connection.request('continue', {});
      assert.match(await finish(s), /total\t30\t6/);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 3);
      const logged = s.ide.notifications.flatMap((n) =>
        n.kind === 'log' && n.text.startsWith('[LogPoint Output]') ? [n.text.trim()] : [],
      );
      assert.deepEqual(logged, [
        '[LogPoint Output]: update dt=1 x=0',
        '[LogPoint Output]: update dt=2 x=1',
        '[LogPoint Output]: update dt=3 x=3',
      ]);
    });

    it('a step over a call of a function with a function breakpoint stops in it, on entry', async () => {
      const { s } = await readyWith(lua, [{ name: 'Entity.new' }]);
      await s.ide.connection.request('stopOnStep', {});
      const stop = await s.ide.nextStop();
      assert.equal(stop.cmd, 'stopOnBreakpoint');
      assert.deepEqual(hitFunctions(stop), ['Entity.new']);
      assert.equal(topOf(stop.stack).line, at('new'));
      await s.ide.connection.request('continue', {});
      await finish(s);
    });
  });
}
