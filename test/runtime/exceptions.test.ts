/**
 * Error stops in the bundled runtime: uncaught errors stop with reason exception and the message
 * before the program dies (launch mode through LuaPanda.runFile, and attach mode for error() and
 * assert()); errors caught by pcall stop only when the IDE enables the "caught" filter.
 */
import { strict as assert } from 'node:assert';
import { runtimeVariants } from '../harness/interpreters';
import { closeAll, finish, fixture, lineOf, startSession, topOf } from './helpers';

for (const lua of runtimeVariants()) {
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
      assert.equal(info.exceptionText, 'value too small: 5');
      assert.equal(info.uncaught, true);
      assert.equal(topOf(stop.stack).line, lineOf('errors_attach.lua', 'assert'));
      assert.equal(stop.stack[1].line, lineOf('errors_attach.lua', 'main'));
      await s.ide.connection.request('continue', {});
      await finish(s, 1);
      assert.match(s.lua.stdout, /caught\tfalse/);
      assert.match(s.lua.stderr, /value too small: 5/);
    });
  });
}
