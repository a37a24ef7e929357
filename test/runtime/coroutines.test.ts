/**
 * Coroutines in the bundled runtime: breakpoints in coroutine.create and coroutine.wrap bodies and
 * in a coroutine created before the runtime loaded, the resumer chain in stack frames, and steps
 * across resume/yield.
 */
import { strict as assert } from 'node:assert';
import { runtimeVariants } from '../harness/interpreters';
import { scenario } from '../harness/scenario';
import { closeAll, finish, line, startSession, topOf } from './helpers';

const coroutines = scenario('coroutines');
/** The scenario's program that starts the runtime itself (test/scenarios/coroutines). */
const F = 'attach.lua';

for (const lua of runtimeVariants()) {
  describe(`runtime coroutines (${lua.label})`, function () {
    this.timeout(20_000);
    afterEach(closeAll);

    it('stops in coroutine.create and coroutine.wrap bodies and in a coroutine created before loading', async () => {
      const s = await startSession(lua, F, {
        dir: coroutines.dir,
        breakpoints: {
          [F]: [
            line(coroutines.line(F, 'workerAfter')),
            line(coroutines.line(F, 'wrapBody')),
            line(coroutines.line(F, 'early')),
          ],
        },
      });
      const c = s.ide.connection;
      const first = await s.ide.nextStop('stopOnBreakpoint');
      const top = topOf(first.stack);
      assert.equal(top.line, coroutines.line(F, 'workerAfter'));
      assert.notEqual(top.coroutine, 'main');
      assert.match(top.coroutine ?? '', /^thread: /);
      // the resumer chain: driver (main thread) resumed the worker
      const resumer = first.stack.find((f) => f.coroutine === 'main' && f.name === 'driver');
      assert.ok(resumer, `resumer frames in ${JSON.stringify(first.stack)}`);
      assert.equal(resumer.line, coroutines.line(F, 'resume2'));
      // The resumer's variables: its thread is read live. The main thread of 5.1/LuaJIT has no
      // handle in pure Lua (its frames are described when the resume starts, without variables);
      // the native module gives one.
      const resumerLocals = await c.request('getVariable', {
        varRef: '10000',
        stackId: String(resumer.index),
      });
      const handleless = (lua.command === 'lua5.1' || lua.isLuaJIT) && !lua.native;
      assert.deepEqual(
        resumerLocals.filter((v) => v.name === 'first').map((v) => v.value),
        handleless ? [] : ['2'],
        JSON.stringify(resumerLocals),
      );
      const locals = await c.request('getVariable', {
        varRef: '10000',
        stackId: String(top.index),
      });
      assert.equal(locals.find((v) => v.name === 'got')?.value, '10');
      await c.request('continue', {});
      const wrapped = await s.ide.nextStop('stopOnBreakpoint');
      assert.equal(topOf(wrapped.stack).line, coroutines.line(F, 'wrapBody'));
      await c.request('continue', {});
      const early = await s.ide.nextStop('stopOnBreakpoint');
      assert.equal(topOf(early.stack).line, coroutines.line(F, 'early'));
      await c.request('continue', {});
      const out = await finish(s);
      assert.match(out, /coroutines\t2\t20\t1\t6/);
    });

    it('steps over a yield into the resumer, and into a resume into the coroutine', async () => {
      const s = await startSession(lua, F, {
        dir: coroutines.dir,
        breakpoints: { [F]: [line(coroutines.line(F, 'workerYield'))] },
      });
      const c = s.ide.connection;
      await s.ide.nextStop('stopOnBreakpoint');
      await c.request('setBreakPoint', { path: coroutines.file(F), bks: [] });
      await c.request('stopOnStep', {});
      const over = await s.ide.nextStop('stopOnStep');
      assert.equal(topOf(over.stack).line, coroutines.line(F, 'resume2'));
      assert.equal(topOf(over.stack).coroutine, 'main');
      await c.request('stopOnStepIn', {});
      const into = await s.ide.nextStop('stopOnStepIn');
      assert.equal(topOf(into.stack).line, coroutines.line(F, 'workerAfter'));
      assert.notEqual(topOf(into.stack).coroutine, 'main');
      await c.request('stopOnStepOut', {});
      const out = await s.ide.nextStop('stopOnStepOut');
      assert.equal(topOf(out.stack).line, coroutines.line(F, 'gen'));
      assert.equal(topOf(out.stack).coroutine, 'main');
      await c.request('continue', {});
      await finish(s);
    });
  });
}
