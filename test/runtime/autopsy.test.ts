/**
 * The runtime's part of the error autopsy, on every interpreter, pure and native (scenario
 * `autopsy`, run in launch mode by the exceptions scenario's launcher): a caught error's stop
 * names the program's pcall call (`caughtAt`), an uncaught one names none, and `listCoroutines`
 * lists the coroutines it knows with their status and where the suspended ones wait.
 */
import { strict as assert } from 'node:assert';
import { runtimeVariants } from '../harness/interpreters';
import { scenario } from '../harness/scenario';
import { closeAll, finish, line, runtimeScenario } from './helpers';

const { lineOf, startSession } = runtimeScenario('autopsy');
const launcher = scenario('exceptions').file('launcher.lua');

interface Info {
  uncaught?: boolean;
  caughtAt?: { file: string; line: number };
}

for (const lua of runtimeVariants()) {
  describe(`runtime error autopsy (${lua.label})`, function () {
    this.timeout(20_000);
    afterEach(closeAll);

    it('a caught error names the line of the pcall that catches it', async () => {
      const s = await startSession(lua, 'caught.lua', {
        script: launcher,
        exceptionFilters: ['caught'],
      });
      const stop = await s.ide.nextStop('stopOnException');
      const info = stop.info as Info;
      assert.equal(info.uncaught, false);
      assert.equal(info.caughtAt?.line, lineOf('caught.lua', 'caught-here'));
      assert.match(info.caughtAt?.file ?? '', /caught\.lua$/);
      await s.ide.connection.request('continue', {});
      await finish(s, 0);
    });

    it('an xpcall catches: the line where the xpcall call begins', async () => {
      const s = await startSession(lua, 'caughtXpcall.lua', {
        script: launcher,
        exceptionFilters: ['caught'],
      });
      const stop = await s.ide.nextStop('stopOnException');
      const info = stop.info as Info;
      assert.equal(info.uncaught, false);
      assert.match(info.caughtAt?.file ?? '', /caughtXpcall\.lua$/i);
      // The call spans lines; interpreters name its first or its last.
      const first = lineOf('caughtXpcall.lua', 'xpcall-here');
      assert.ok(
        info.caughtAt !== undefined &&
          info.caughtAt.line >= first &&
          info.caughtAt.line <= first + 2,
        JSON.stringify(info.caughtAt),
      );
      await s.ide.connection.request('continue', {});
      await finish(s, 0);
    });

    it('an uncaught error has no catch site', async () => {
      const s = await startSession(lua, 'uncaught.lua', { script: launcher });
      const stop = await s.ide.nextStop('stopOnException');
      const info = stop.info as Info;
      assert.equal(info.uncaught, true);
      assert.equal(info.caughtAt, undefined);
      await s.ide.connection.request('continue', {});
      await finish(s, 1);
    });

    it('listCoroutines: status, where suspended ones wait, a cap with the total', async () => {
      const s = await startSession(lua, 'coroutines.lua', {
        script: launcher,
        breakpoints: { 'coroutines.lua': [line(lineOf('coroutines.lua', 'inner-runs'))] },
      });
      await s.ide.nextStop('stopOnBreakpoint');
      const all = await s.ide.connection.request('listCoroutines', { max: '20' });
      const of = (status: string) => all.coroutines.filter((c) => c.status === status);
      assert.equal(of('running').length, 1);
      assert.deepEqual(
        of('normal').map((c) => c.line),
        [lineOf('coroutines.lua', 'outer-resumes')],
      );
      assert.deepEqual(
        of('suspended')
          .map((c) => c.line)
          .sort(),
        [
          lineOf('coroutines.lua', 'producer-yields'),
          lineOf('coroutines.lua', 'wrap-yields'),
        ].sort(),
      );
      assert.equal(
        of('suspended').find((c) => c.wrap)?.line,
        lineOf('coroutines.lua', 'wrap-yields'),
      );
      assert.equal(all.total, all.coroutines.length);
      const capped = await s.ide.connection.request('listCoroutines', { max: '2' });
      assert.equal(capped.coroutines.length, 2);
      assert.equal(capped.total, all.total);
      assert.deepEqual(
        capped.coroutines.map((c) => c.status),
        ['running', 'normal'],
      );
      await s.ide.connection.request('continue', {});
      await finish(s, 0);
    });
  });
}
