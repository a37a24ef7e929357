// Frame names as the code writes them (src/session/stop/functionNames.ts with the runtime's `defined`
// and `module` frame fields), through the out-of-process adapter on every interpreter.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { luaInterpreters } from '../harness/interpreters';
import { fixture, markerLine as lineOf } from './dapHarness';
import { useDapTest } from './useDapTest';

const MAIN = fixture(path.join('names', 'main.lua'));
const UTIL = fixture(path.join('names', 'util.lua'));

/** Breakpoint marker → the names of the top frames expected there. */
const EXPECTED: [string, string, string[]][] = [
  [MAIN, 'new', ['Entity.new', 'main chunk']],
  [MAIN, 'update', ['Entity:update', 'main chunk']],
  [UTIL, 'helper', ['M.helper', 'Entity:update', 'main chunk']],
  [MAIN, 'questRun', ['Quest:run']],
  [MAIN, 'spawnerRun', ['Spawner:run']],
  [MAIN, 'tick', ['tick']],
  [MAIN, 'handler', ['handlers.fn']],
  [MAIN, 'loveUpdate', ['love.update']],
  [UTIL, 'twice', ['M.twice']],
  [MAIN, 'anonymous', [`function <main.lua:${lineOf(MAIN, 'anonymous') - 1}>`]],
];

for (const lua of luaInterpreters()) {
  describe(`frame names on ${lua.command}`, function () {
    this.timeout(30_000);
    const t = useDapTest();

    it('names frames as their definitions do: methods, fields, locals, table fields, module functions, anonymous functions', async () => {
      const breakpoints: Record<string, { line: number }[]> = { [MAIN]: [], [UTIL]: [] };
      for (const [file, marker] of EXPECTED) breakpoints[file].push({ line: lineOf(file, marker) });
      await t.launch(lua.command, MAIN, { cwd: path.dirname(MAIN) }, { breakpoints });
      for (const [file, marker, names] of EXPECTED) {
        const stop = await t.stoppedAt('breakpoint', file, lineOf(file, marker));
        assert.deepEqual(
          stop.frames.slice(0, names.length).map((f) => f.name),
          names,
          `at @${marker}`,
        );
        await t.dc.continueRequest({ threadId: stop.event.threadId ?? 1 });
      }
      await t.terminated;
    });
  });
}
