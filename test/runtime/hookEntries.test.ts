/**
 * Lua 5.1 keeps each thread's hook function in a registry table keyed by the thread's address,
 * and the entry outlives the thread: a coroutine created later at the same address shows the
 * runtime's function to the program's debug.gethook (seen after LuaPanda.stopAttach()). The
 * runtime's evaluations run in coroutines with a budget hook; none may leave it behind
 * (test/scenarios/hookPath/hook_entries.lua). Checked on every interpreter.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT, spawnLua } from '../harness/luaProcess';

const SCRIPT = path.join(REPO_ROOT, 'test', 'scenarios', 'hookPath', 'hook_entries.lua');

for (const lua of luaInterpreters()) {
  describe(`runtime hook entries of finished evaluations (${lua.command})`, () => {
    it('leaves no runtime hook function in the registry once an evaluation ends', async () => {
      const proc = spawnLua({ ...lua, native: false }, SCRIPT, {
        luaPath: [path.join(REPO_ROOT, 'lua')],
      });
      const exit = await proc.waitForExit(20_000);
      assert.equal(exit.code, 0, proc.stderr);
      assert.equal(proc.stdout, 'after evaluations\ttrue\nafter release\t0\n');
    });
  });
}
