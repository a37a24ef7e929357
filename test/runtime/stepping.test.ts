/**
 * Execution control in the bundled runtime: stop on entry, BP(), step over/into/out across
 * recursion, tail calls and pcall/xpcall, and pause of a tight loop without calls.
 */
import { strict as assert } from 'node:assert';
import { runtimeVariants } from '../harness/interpreters';
import { scenario } from '../harness/scenario';
import { closeAll, finish, fixture, line, lineOf, Session, startSession, topOf } from './helpers';
import { StopCommand } from '../../src/protocol';

/** Recursion, tail calls and pcall/xpcall (test/scenarios/recursion/attach.lua). */
const recursion = scenario('recursion');

async function stepAndStop(
  s: Session,
  cmd: 'stopOnStep' | 'stopOnStepIn' | 'stopOnStepOut',
  expect?: StopCommand,
) {
  await s.ide.connection.request(cmd, {});
  return s.ide.nextStop(expect);
}

for (const lua of runtimeVariants()) {
  describe(`runtime stepping (${lua.label})`, function () {
    this.timeout(20_000);
    afterEach(closeAll);

    it('stops on entry at the line after start(), then steps over lines of the main chunk', async () => {
      const s = await startSession(lua, 'basic.lua', { settings: { stopOnEntry: true } });
      const entry = await s.ide.nextStop('stopOnEntry');
      assert.equal(topOf(entry.stack).line, 4);
      const next = await stepAndStop(s, 'stopOnStep', 'stopOnStep');
      assert.equal(topOf(next.stack).line, 5);
      await s.ide.connection.request('continue', {});
      await finish(s);
    });

    it('steps into a call, out of it, and over calls without entering them', async () => {
      const s = await startSession(lua, 'basic.lua', {
        breakpoints: { 'basic.lua': [line(lineOf('basic.lua', 'accCall'))] },
      });
      await s.ide.nextStop('stopOnBreakpoint');
      await s.ide.connection.request('setBreakPoint', { path: fixture('basic.lua'), bks: [] });
      const into = await stepAndStop(s, 'stopOnStepIn', 'stopOnStepIn');
      assert.equal(topOf(into.stack).line, lineOf('basic.lua', 'add'));
      assert.equal(topOf(into.stack).name, 'add');
      const out = await stepAndStop(s, 'stopOnStepOut', 'stopOnStepOut');
      assert.equal(topOf(out.stack).line, lineOf('basic.lua', 'accNext'));
      assert.equal(topOf(out.stack).name, 'accumulate');
      const over1 = await stepAndStop(s, 'stopOnStep', 'stopOnStep');
      assert.ok(
        [lineOf('basic.lua', 'accCall') - 1, lineOf('basic.lua', 'accCall')].includes(
          topOf(over1.stack).line,
        ),
      );
      let over = over1;
      for (let i = 0; i < 4 && topOf(over.stack).line !== lineOf('basic.lua', 'accCall'); i++) {
        over = await stepAndStop(s, 'stopOnStep', 'stopOnStep');
      }
      assert.equal(topOf(over.stack).line, lineOf('basic.lua', 'accCall'));
      const past = await stepAndStop(s, 'stopOnStep', 'stopOnStep');
      assert.equal(
        topOf(past.stack).line,
        lineOf('basic.lua', 'accNext'),
        'step over must not enter add',
      );
      assert.equal(topOf(past.stack).name, 'accumulate');
      await s.ide.connection.request('continue', {});
      await finish(s);
    });

    it('steps over a recursive call in the right frame and out of one level only', async () => {
      const s = await startSession(lua, 'attach.lua', {
        dir: recursion.dir,
        breakpoints: { 'attach.lua': [line(recursion.line('attach.lua', 'factRec'))] },
      });
      const first = await s.ide.nextStop('stopOnBreakpoint');
      assert.equal(first.stack.filter((f) => f.name === 'fact').length, 1);
      await s.ide.connection.request('setBreakPoint', {
        path: recursion.file('attach.lua'),
        bks: [],
      });
      const over = await stepAndStop(s, 'stopOnStep', 'stopOnStep');
      assert.equal(topOf(over.stack).line, recursion.line('attach.lua', 'factRet'));
      assert.equal(
        over.stack.filter((f) => f.name === 'fact').length,
        1,
        'still in the outermost fact',
      );
      const locals = await s.ide.connection.request('getVariable', {
        varRef: '10000',
        stackId: String(topOf(over.stack).index),
      });
      assert.equal(locals.find((v) => v.name === 'r')?.value, '24');
      // Into the recursion, then out of exactly one level.
      await s.ide.connection.request('continue', {});
      await finish(s);
    });

    it('shows each recursion level with its own locals', async () => {
      const s = await startSession(lua, 'attach.lua', {
        dir: recursion.dir,
        breakpoints: { 'attach.lua': [line(recursion.line('attach.lua', 'factBase'))] },
      });
      await s.ide.nextStop('stopOnBreakpoint'); // k = 4
      await s.ide.connection.request('continue', {});
      await s.ide.nextStop('stopOnBreakpoint'); // k = 3
      await s.ide.connection.request('continue', {});
      await s.ide.nextStop('stopOnBreakpoint'); // k = 2
      await s.ide.connection.request('continue', {});
      const deep = await s.ide.nextStop('stopOnBreakpoint'); // k = 1
      const facts = deep.stack.filter((f) => f.name === 'fact');
      assert.equal(facts.length, 4);
      const ks: string[] = [];
      for (const f of facts) {
        const locals = await s.ide.connection.request('getVariable', {
          varRef: '10000',
          stackId: String(f.index),
        });
        ks.push(locals.find((v) => v.name === 'k')?.value ?? '?');
      }
      assert.deepEqual(ks, ['1', '2', '3', '4']);
      await s.ide.connection.request('setBreakPoint', {
        path: recursion.file('attach.lua'),
        bks: [],
      });
      // Like PUC Lua, a step out continues to the next line of the caller.
      const out = await stepAndStop(s, 'stopOnStepOut', 'stopOnStepOut');
      assert.equal(topOf(out.stack).line, recursion.line('attach.lua', 'factRet'));
      assert.equal(out.stack.filter((f) => f.name === 'fact').length, 3);
      await s.ide.connection.request('continue', {});
      await finish(s);
    });

    it('steps over a tail call, into a tail-called function, and over pcall/xpcall of failing code', async () => {
      const s = await startSession(lua, 'attach.lua', {
        dir: recursion.dir,
        breakpoints: { 'attach.lua': [line(recursion.line('attach.lua', 'mainTail'))] },
      });
      await s.ide.nextStop('stopOnBreakpoint');
      await s.ide.connection.request('setBreakPoint', {
        path: recursion.file('attach.lua'),
        bks: [],
      });
      const into = await stepAndStop(s, 'stopOnStepIn', 'stopOnStepIn');
      assert.equal(topOf(into.stack).line, recursion.line('attach.lua', 'tailCall'));
      const into2 = await stepAndStop(s, 'stopOnStepIn', 'stopOnStepIn');
      assert.equal(topOf(into2.stack).line, recursion.line('attach.lua', 'tailTarget'));
      const out = await stepAndStop(s, 'stopOnStepOut', 'stopOnStepOut');
      assert.equal(topOf(out.stack).line, recursion.line('attach.lua', 'mainPcall'));
      const overPcall = await stepAndStop(s, 'stopOnStep', 'stopOnStep');
      assert.equal(topOf(overPcall.stack).line, recursion.line('attach.lua', 'afterPcall'));
      const overPlain = await stepAndStop(s, 'stopOnStep', 'stopOnStep');
      assert.equal(topOf(overPlain.stack).line, recursion.line('attach.lua', 'mainXpcall'));
      const overX = await stepAndStop(s, 'stopOnStep', 'stopOnStep');
      assert.equal(topOf(overX.stack).line, recursion.line('attach.lua', 'done'));
      await s.ide.connection.request('continue', {});
      const stdout = await finish(s);
      assert.match(stdout, /done\t24\t11\tfalse\t35\tfalse/);
    });

    it('BP() stops at the next line as stopOnCodeBreakpoint', async () => {
      const s = await startSession(lua, 'bp.lua');
      const stop = await s.ide.nextStop('stopOnCodeBreakpoint');
      assert.equal(topOf(stop.stack).line, lineOf('bp.lua', 'afterBP'));
      await s.ide.connection.request('continue', {});
      const out = await finish(s);
      assert.match(out, /bp returned\ttrue/);
    });

    it('pauses a tight loop without calls within a bounded time, and resumes it', async function () {
      // A JIT-compiled LuaJIT loop runs no hook at all, so under LuaJIT the loop runs interpreted.
      const s = await startSession(lua, 'loop.lua', {});
      await new Promise((r) => setTimeout(r, 200));
      await s.ide.connection.request('pause', {});
      const stop = await s.ide.nextStop('stopOnPause', 5_000);
      const top = topOf(stop.stack);
      assert.ok(
        [
          lineOf('loop.lua', 'loop'),
          lineOf('loop.lua', 'body'),
          lineOf('loop.lua', 'body') + 1,
        ].includes(top.line),
      );
      // End the loop through the REPL and let the program finish.
      const set = await s.ide.connection.request('runREPLExpression', {
        Expression: 'running = false',
        stackId: String(top.index),
      });
      assert.equal(set[0].isSuccess, true);
      await s.ide.connection.request('continue', {});
      const out = await finish(s);
      assert.match(out, /stopped after\ttrue/);
    });
  });
}
