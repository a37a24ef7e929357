/**
 * A coroutine that existed before the IDE attached and is resumed from C — by an engine's
 * lua_resume, here by the interpreter's own coroutine.resume captured before start() and by a
 * coroutine.wrap function made then — stops at its breakpoints: PUC Lua hooks are per thread, and
 * no wrapper of the runtime sees such a resume, so the runtime finds these threads when it
 * attaches (lua/luapanda/threadscan.lua). Every interpreter, pure and native; Lua 5.1 without the
 * accelerator cannot read a C function's upvalues, so a coroutine.wrap function made before the
 * attach keeps its thread out of reach there (the documented limit).
 */
import { strict as assert } from 'node:assert';
import { runtimeVariants } from '../harness/interpreters';
import { closeAll, finish, line, runtimeScenario, topOf } from './helpers';

// The program: test/scenarios/coroutines/coroutines_before_attach.lua.
const { fixture, lineOf, startSession } = runtimeScenario('coroutines');

const FILE = 'coroutines_before_attach.lua';

for (const lua of runtimeVariants()) {
  describe(`runtime: coroutines created before the attach, resumed from C (${lua.label})`, function () {
    this.timeout(30_000);
    afterEach(closeAll);

    /** Stops once at `marker`, then runs to the end without breakpoints. */
    async function stopsOnceAt(marker: string): Promise<void> {
      const s = await startSession(lua, FILE, {
        breakpoints: { [FILE]: [line(lineOf(FILE, marker))] },
      });
      const stop = await s.ide.nextStop('stopOnBreakpoint');
      assert.equal(topOf(stop.stack).line, lineOf(FILE, marker), s.lua.describe());
      await s.ide.connection.request('setBreakPoint', { path: fixture(FILE), bks: [] });
      await s.ide.connection.request('continue', {});
      // The program then prints what plain Lua prints.
      const out = await finish(s);
      assert.match(out, /frame\t1\t1\t10\nframe\t2\t2\t20\nframe\t3\t3\t30\n/);
    }

    it('stops in a coroutine held by a table, resumed by a coroutine.resume captured before', () =>
      stopsOnceAt('job'));

    (lua.command === 'lua5.1' && !lua.native ? it.skip : it)(
      'stops in the body of a coroutine.wrap function made before',
      () => stopsOnceAt('wrapped'),
    );
  });
}
