/**
 * LuaJIT's hot counters after the runtime loaded and attached. LuaJIT counts calls and loop
 * iterations toward compiling in 64 counters shared by all code; the runtime's own code counts
 * there too, at addresses that change from run to run, and used to leave them at random values.
 * A program function could then be compiled long before its time — or, as an xpcall message
 * handler, have its recording abort and clear LuaJIT's "in error handling" mark
 * (error_in_handler.lua differed in about one LuaJIT run in a thousand). The fixture reports when
 * each of eight fresh functions gets its first trace; plain and attached must agree.
 */
import { strict as assert } from 'node:assert';
import { runtimeVariants } from '../harness/interpreters';
import { spawnLua } from '../harness/luaProcess';
import { BUNDLE_DIR, closeAll, finish, runtimeScenario } from './helpers';

// The programs: test/scenarios/hookPath.
const { dir: FIXTURES, fixture, startSession } = runtimeScenario('hookPath');

for (const lua of runtimeVariants().filter((l) => l.isLuaJIT)) {
  describe(`runtime and LuaJIT's hot counters (${lua.label})`, function () {
    this.timeout(30_000);
    afterEach(closeAll);

    it('leaves them as a program finds them when it starts', async () => {
      // The same environment and an argument as long as a port: what LuaJIT allocates before it
      // loads the program decides where the program's functions lie, and so their counters.
      const plain = spawnLua(lua, fixture('jitcounters.lua'), {
        args: ['plain'],
        luaPath: [BUNDLE_DIR],
        cwd: FIXTURES,
      });
      const exit = await plain.waitForExit(10_000);
      assert.equal(exit.code, 0, plain.stderr);
      assert.match(plain.stdout, /^first traces at calls: \d+( \d+){7}\n$/);
      // Three attached runs: where the runtime's code lies in memory changes from run to run.
      for (let run = 0; run < 3; run++) {
        const s = await startSession(lua, 'jitcounters.lua');
        assert.equal(await finish(s), plain.stdout, `attached run ${run + 1}`);
      }
    });
  });
}
