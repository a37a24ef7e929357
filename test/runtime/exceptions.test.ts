/**
 * Error stops in the bundled runtime: uncaught errors stop with reason exception and the message
 * before the program dies (launch mode through LuaPanda.runFile; attach mode through the
 * interpreter's own message handler, runtime errors included, and the error()/assert() wrappers);
 * errors caught by pcall stop only when the IDE enables the "caught" filter.
 */
import { strict as assert } from 'node:assert';
import { runtimeVariants } from '../harness/interpreters';
import { BUNDLE_DIR, Session, closeAll, finish, runtimeScenario, topOf } from './helpers';
import { spawnLua } from '../harness/luaProcess';
import type { LuaStackFrame } from '../../src/protocol';

// The programs: test/scenarios/exceptions.
const { dir: FIXTURES, fixture, lineOf, startSession } = runtimeScenario('exceptions');

/** LuaJIT's tracebacks name C frames by address, which differs from run to run. */
const withoutAddresses = (text: string) => text.replace(/0x[0-9a-f]+/g, '0x…');

for (const lua of runtimeVariants()) {
  /**
   * The local `total` of the dead coroutine's top frame. LuaJIT keeps no names or line of a
   * coroutine that died (only its function): there the frame's locals are not listed at all.
   */
  const assertTotal = async (s: Session, stack: LuaStackFrame[], expected: string) => {
    const locals = await s.ide.connection.request('getVariable', {
      varRef: '10000',
      stackId: String(topOf(stack).index),
    });
    const total = locals.find((v) => v.name === 'total')?.value;
    assert.equal(total, lua.isLuaJIT ? undefined : expected);
  };

  describe(`runtime exceptions (${lua.label})`, function () {
    this.timeout(20_000);
    afterEach(closeAll);

    it('launch mode: an uncaught error stops at the error with the stack intact, then the program dies', async () => {
      const s = await startSession(lua, 'errors.lua', { script: fixture('launcher.lua') });
      const stop = await s.ide.nextStop('stopOnException');
      assert.ok(!Array.isArray(stop.info) && 'exceptionText' in stop.info);
      const info = stop.info as { exceptionText?: string; uncaught?: boolean };
      assert.match(info.exceptionText ?? '', /boom 42/);
      assert.equal(info.uncaught, true);
      const top = topOf(stop.stack);
      assert.equal(top.line, lineOf('errors.lua', 'explode'));
      assert.equal(top.name, 'explode');
      const locals = await s.ide.connection.request('getVariable', {
        varRef: '10000',
        stackId: String(top.index),
      });
      assert.equal(locals.find((v) => v.name === 'reason')?.value, '"boom 42"');
      assert.equal(
        s.ide.notifications.filter((n) => n.kind === 'stop').length,
        1,
        'the pcall-caught error did not stop',
      );
      await s.ide.connection.request('continue', {});
      await finish(s, 1);
      assert.match(s.lua.stderr, /boom 42/);
      assert.match(s.lua.stdout, /caught\tfalse/);
      assert.doesNotMatch(s.lua.stdout, /not reached/);
    });

    it('stops on errors caught by pcall only with the "caught" filter', async () => {
      const s = await startSession(lua, 'errors.lua', {
        script: fixture('launcher.lua'),
        exceptionFilters: ['uncaught', 'caught'],
      });
      const caught = await s.ide.nextStop('stopOnException');
      const info = caught.info as { exceptionText?: string; uncaught?: boolean };
      assert.equal(info.uncaught, false);
      assert.match(info.exceptionText ?? '', /index/);
      assert.equal(topOf(caught.stack).line, lineOf('errors.lua', 'risky'));
      await s.ide.connection.request('continue', {});
      const uncaught = await s.ide.nextStop('stopOnException');
      assert.equal((uncaught.info as { uncaught?: boolean }).uncaught, true);
      await s.ide.connection.request('continue', {});
      await finish(s, 1);
    });

    it('a filter with conditions stops only on errors whose message contains one of them', async () => {
      const s = await startSession(lua, 'errors.lua', {
        script: fixture('launcher.lua'),
        exceptionFilters: ['uncaught', 'caught'],
        // The caught error is about indexing a nil value: no condition of "caught" matches it.
        exceptionConditions: { caught: ['boom', 'no such text'], uncaught: ['xx', 'boom 4'] },
      });
      assert.ok(s.reply.features?.includes('exceptionConditions'));
      const stop = await s.ide.nextStop('stopOnException');
      const info = stop.info as { exceptionText?: string; uncaught?: boolean };
      assert.equal(info.uncaught, true, 'the caught error did not stop');
      assert.match(info.exceptionText ?? '', /boom 42/);
      assert.equal(topOf(stop.stack).line, lineOf('errors.lua', 'explode'));
      await s.ide.connection.request('continue', {});
      await finish(s, 1);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 1);
      assert.match(s.lua.stdout, /caught\tfalse/);
    });

    it('conditions are plain text, not patterns; an error no condition matches dies as usual', async () => {
      const s = await startSession(lua, 'errors.lua', {
        script: fixture('launcher.lua'),
        exceptionFilters: ['uncaught', 'caught'],
        // "index" matches the caught error (every version says "attempt to index");
        // "boom.42" would match "boom 42" as a pattern, and does not as text.
        exceptionConditions: { caught: ['index'], uncaught: ['boom.42'] },
      });
      const caught = await s.ide.nextStop('stopOnException');
      assert.equal((caught.info as { uncaught?: boolean }).uncaught, false);
      assert.equal(topOf(caught.stack).line, lineOf('errors.lua', 'risky'));
      await s.ide.connection.request('continue', {});
      await finish(s, 1);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 1);
      assert.match(s.lua.stderr, /boom 42/);
    });

    it('attach mode: the "assert" filter with a condition stops on the matching failed assert only', async () => {
      const s = await startSession(lua, 'errors_attach.lua', {
        exceptionFilters: ['assert'],
        exceptionConditions: { assert: ['too small: 5'] },
      });
      // The caught assert says "value too small: 1": it does not stop; the uncaught one does.
      const stop = await s.ide.nextStop('stopOnException');
      const info = stop.info as { exceptionText?: string; uncaught?: boolean };
      assert.match(info.exceptionText ?? '', /value too small: 5$/);
      assert.equal(info.uncaught, true);
      await s.ide.connection.request('continue', {});
      await finish(s, 1);
      assert.match(s.lua.stdout, /caught\tfalse/);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 1);
    });

    it('with no filters, errors do not stop and the program dies as usual', async () => {
      const s = await startSession(lua, 'errors.lua', {
        script: fixture('launcher.lua'),
        exceptionFilters: [],
      });
      await finish(s, 1);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 0);
      assert.match(s.lua.stderr, /boom 42/);
    });

    it('attach mode: an uncaught assert stops before the program dies; a caught one does not', async () => {
      const s = await startSession(lua, 'errors_attach.lua');
      const stop = await s.ide.nextStop('stopOnException');
      const info = stop.info as { exceptionText?: string; uncaught?: boolean };
      assert.match(info.exceptionText ?? '', /errors_attach\.lua:\d+: value too small: 5$/);
      assert.equal(info.uncaught, true);
      assert.equal(topOf(stop.stack).line, lineOf('errors_attach.lua', 'assert'));
      assert.equal(stop.stack[1].line, lineOf('errors_attach.lua', 'main'));
      await s.ide.connection.request('continue', {});
      await finish(s, 1);
      assert.match(s.lua.stdout, /caught\tfalse/);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 1);
      // The message names the line of the assert, as without the debugger.
      const firstLine = (text: string) => text.split('\n')[0];
      assert.match(
        firstLine(s.lua.stderr),
        new RegExp(
          `errors_attach\\.lua:${lineOf('errors_attach.lua', 'assert')}: value too small: 5$`,
        ),
      );
    });
    it('attach mode: an uncaught runtime error stops with its locals, then the program dies as without the debugger', async () => {
      const s = await startSession(lua, 'runtime_error_attach.lua');
      const stop = await s.ide.nextStop('stopOnException');
      const info = stop.info as { exceptionText?: string; uncaught?: boolean };
      assert.match(
        info.exceptionText ?? '',
        /runtime_error_attach\.lua:\d+: attempt to perform arithmetic on/,
      );
      assert.equal(info.uncaught, true);
      const top = topOf(stop.stack);
      assert.equal(top.line, lineOf('runtime_error_attach.lua', 'divide'));
      assert.equal(stop.stack[1].line, lineOf('runtime_error_attach.lua', 'main'));
      const locals = await s.ide.connection.request('getVariable', {
        varRef: '10000',
        stackId: String(top.index),
      });
      assert.equal(locals.find((v) => v.name === 'sum')?.value, '6');
      const [doctor] = await s.ide.connection.request('runREPLExpression', {
        Expression: 'LuaPanda.doctor()',
        stackId: String(top.index),
      });
      assert.match(doctor.value, /uncaught errors: every one stops/);
      await s.ide.connection.request('continue', {});
      await finish(s, 1);
      assert.match(s.lua.stdout, /caught\tfalse/, 'the pcall-caught runtime error did not stop');
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 1);

      // What the program prints as it dies is what it prints without the debugger.
      const plain = spawnLua(lua, fixture('runtime_error_attach.lua'), {
        args: ['0', 'plain'],
        luaPath: [BUNDLE_DIR],
        cwd: FIXTURES,
      });
      assert.equal((await plain.waitForExit(15_000)).code, 1);
      assert.equal(withoutAddresses(s.lua.stderr), withoutAddresses(plain.stderr));
      assert.match(s.lua.stderr, /stack traceback:/);
    });

    it('attach mode: without an IDE the runtime changes nothing of an uncaught error', async () => {
      const run = (variant: string) =>
        spawnLua(lua, fixture('runtime_error_attach.lua'), {
          // Port 1: nothing listens, so start() finds no IDE.
          args: ['1', variant],
          luaPath: [BUNDLE_DIR],
          cwd: FIXTURES,
        });
      const detached = run('detached');
      const plain = run('plain');
      assert.equal((await detached.waitForExit(15_000)).code, 1);
      assert.equal((await plain.waitForExit(15_000)).code, 1);
      assert.equal(withoutAddresses(detached.stderr), withoutAddresses(plain.stderr));
      assert.match(detached.stderr, /attempt to perform arithmetic on/);
    });

    it('attach mode: a stack overflow still dies with its own message', async () => {
      const s = await startSession(lua, 'runtime_error_attach.lua', { args: ['overflow'] });
      await finish(s, 1);
      assert.match(s.lua.stderr, /stack overflow/);
      assert.doesNotMatch(s.lua.stderr, /error in error handling/);
    });
    it('a coroutine that dies of an error stops with its own stack: uncaught through coroutine.wrap, caught through resume only with the filter', async () => {
      const s = await startSession(lua, 'coroutine_errors.lua');
      const stop = await s.ide.nextStop('stopOnException');
      const info = stop.info as { exceptionText?: string; uncaught?: boolean };
      assert.match(info.exceptionText ?? '', /attempt to perform arithmetic on/);
      assert.equal(info.uncaught, true);
      assert.equal(topOf(stop.stack).line, lineOf('coroutine_errors.lua', 'cost'));
      const below = stop.stack.find((f) => f.line !== lineOf('coroutine_errors.lua', 'cost'));
      assert.equal(below?.line, lineOf('coroutine_errors.lua', 'wrap'), 'the resumer below');
      await assertTotal(s, stop.stack, '5');
      await s.ide.connection.request('continue', {});
      await finish(s, 1);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 1);
      assert.match(s.lua.stdout, /resume\tfalse\t.*attempt to perform arithmetic/);
      assert.match(s.lua.stdout, /wrap in pcall\tfalse/);
      assert.match(s.lua.stderr, /attempt to perform arithmetic on/);
    });

    it("an error in a wrap body inside another wrap body stops once, where nothing catches it, with both coroutines' frames", async () => {
      const s = await startSession(lua, 'coroutine_nested_wrap.lua');
      const stop = await s.ide.nextStop('stopOnException');
      const info = stop.info as { exceptionText?: string; uncaught?: boolean };
      assert.match(info.exceptionText ?? '', /attempt to index/);
      assert.equal(info.uncaught, true);
      const lines = stop.stack.map((f) => f.line);
      const expected = ['fails', 'innercall', 'uncaught'].map((m) =>
        lineOf('coroutine_nested_wrap.lua', m),
      );
      assert.deepEqual(
        lines.filter((l) => expected.includes(l)),
        expected,
        `inner body, outer body, main, in that order: ${lines.join(' ')}`,
      );
      await s.ide.connection.request('continue', {});
      await finish(s, 1);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 1);
      assert.match(s.lua.stdout, /caught outside\tfalse/);
      assert.match(s.lua.stdout, /caught inside\tfalse/);
      assert.doesNotMatch(s.lua.stdout, /not reached/);
    });

    it('with the "caught" filter, each nested wrap error stops once, caught or not', async () => {
      const s = await startSession(lua, 'coroutine_nested_wrap.lua', {
        exceptionFilters: ['uncaught', 'caught'],
      });
      for (const uncaught of [false, false, true]) {
        const stop = await s.ide.nextStop('stopOnException');
        assert.equal((stop.info as { uncaught?: boolean }).uncaught, uncaught);
        assert.equal(topOf(stop.stack).line, lineOf('coroutine_nested_wrap.lua', 'fails'));
        await s.ide.connection.request('continue', {});
      }
      await finish(s, 1);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 3);
    });

    for (const mode of ['attach', 'launch'] as const) {
      it(`${mode} mode: an uncaught error raised again from a dead coroutine's error stops with the coroutine's frames first`, async () => {
        const s = await startSession(
          lua,
          'coroutine_assert.lua',
          mode === 'launch' ? { script: fixture('launcher.lua') } : {},
        );
        const stop = await s.ide.nextStop('stopOnException');
        const info = stop.info as { exceptionText?: string; uncaught?: boolean };
        assert.match(info.exceptionText ?? '', /coroutine_assert\.lua:\d+: .*attempt to index/);
        assert.equal(info.uncaught, true);
        assert.equal(topOf(stop.stack).line, lineOf('coroutine_assert.lua', 'fails'));
        assert.ok(
          stop.stack.some((f) => f.line === lineOf('coroutine_assert.lua', 'resume')),
          'the assert that raised it again is below',
        );
        if (!lua.isLuaJIT) {
          const locals = await s.ide.connection.request('getVariable', {
            varRef: '10000',
            stackId: String(topOf(stop.stack).index),
          });
          assert.equal(locals.find((v) => v.name === 'fields')?.value, 'nil');
        }
        await s.ide.connection.request('continue', {});
        await finish(s, 1);
        assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 1);
        assert.match(s.lua.stderr, /attempt to index/);
        assert.doesNotMatch(s.lua.stdout, /not reached/);
      });
    }

    it('the "assert" filter stops on failed asserts, caught or not, and on nothing else', async () => {
      const s = await startSession(lua, 'coroutine_assert.lua', { exceptionFilters: ['assert'] });
      const caught = await s.ide.nextStop('stopOnException');
      assert.equal((caught.info as { uncaught?: boolean }).uncaught, false);
      assert.match(
        (caught.info as { exceptionText?: string }).exceptionText ?? '',
        /one is not more/,
      );
      assert.equal(topOf(caught.stack).line, lineOf('coroutine_assert.lua', 'caughtassert'));
      await s.ide.connection.request('continue', {});
      const uncaught = await s.ide.nextStop('stopOnException');
      assert.equal((uncaught.info as { uncaught?: boolean }).uncaught, true);
      assert.equal(topOf(uncaught.stack).line, lineOf('coroutine_assert.lua', 'fails'));
      await s.ide.connection.request('continue', {});
      await finish(s, 1);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 2);
      assert.match(s.lua.stdout, /caught error\tfalse\t.*plain error/);
    });

    it('with the "caught" filter, errors ending coroutines under resume or a protected wrap stop too, once each', async () => {
      const s = await startSession(lua, 'coroutine_errors.lua', {
        exceptionFilters: ['uncaught', 'caught'],
      });
      const expected: [string, boolean, string][] = [
        ['resume', false, '1'],
        ['pcall', false, '0'],
        ['wrap', true, '5'],
      ];
      for (const [resumer, uncaught, total] of expected) {
        const stop = await s.ide.nextStop('stopOnException');
        assert.equal((stop.info as { uncaught?: boolean }).uncaught, uncaught, resumer);
        assert.equal(topOf(stop.stack).line, lineOf('coroutine_errors.lua', 'cost'));
        assert.ok(
          stop.stack.some((f) => f.line === lineOf('coroutine_errors.lua', resumer)),
          `the ${resumer} line is among the frames below`,
        );
        await assertTotal(s, stop.stack, total);
        await s.ide.connection.request('continue', {});
      }
      await finish(s, 1);
      assert.equal(s.ide.notifications.filter((n) => n.kind === 'stop').length, 3);
    });
  });
}
