/**
 * The heartbeat's one-shot hook (lua/luapanda/wakeup.lua) on every interpreter: one that fired
 * inside the runtime and re-armed itself is removed when the heartbeat stops (stopAttach), so a
 * program never sees a hook of ours after it detached.
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { luaInterpreters } from '../harness/interpreters';
import { REPO_ROOT, spawnLua } from '../harness/luaProcess';

const SCRIPT = path.join(REPO_ROOT, 'test', 'scenarios', 'attach', 'wakeup_stop.lua');

for (const lua of luaInterpreters()) {
  describe(`runtime heartbeat one-shot (${lua.command})`, () => {
    it('stopping the heartbeat removes a pending one-shot on the main thread and a coroutine', async () => {
      const proc = spawnLua({ ...lua, native: false }, SCRIPT, {
        luaPath: [path.join(REPO_ROOT, 'lua')],
      });
      const exit = await proc.waitForExit(10_000);
      assert.equal(exit.code, 0, proc.stderr);
      assert.match(proc.stdout, /^armed\ttrue\ttrue\tafter stop\tfalse\tfalse\t55\n$/);
    });
  });
}
