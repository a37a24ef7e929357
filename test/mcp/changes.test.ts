/**
 * What changed since the last stop, as an agent sees it: the SDK client against headless
 * luapanda-mcp on real Lua (pure and with the native accelerator), on test/scenarios/changes. The
 * stop data's `changed` list names the top frame's locals, upvalues and `self` fields that differ
 * from the last stop in the same function, with old and new previews; a first stop has none, and
 * a different function's stop in between neither shows in nor disturbs the list.
 */
import * as assert from 'node:assert/strict';
import { stopDataOf, useHeadless } from './headlessFixture';
import { scenarioWorkspace } from './luaWorkspace';
import { runtimeVariants } from '../harness/interpreters';
import { scenario } from '../harness/scenario';

interface Change {
  name: string;
  old: string;
  new: string;
}
interface Stop {
  thread_id: number;
  line: number;
  changed?: Change[];
}

const sc = scenario('changes');

for (const lua of runtimeVariants()) {
  describe(`MCP stop data: what changed, with ${lua.label ?? lua.command}`, function () {
    this.timeout(60_000);
    const { open, call } = useHeadless();

    it('lists the changed local, upvalue and self field with old and new values; first stops have none', async () => {
      await open(await scenarioWorkspace(lua, sc));
      for (const marker of ['tick', 'report']) {
        const set = await call('set_breakpoint', {
          file_path: 'main.lua',
          line_number: sc.line('main.lua', marker),
        });
        assert.equal(set.status, 'success', set.message);
      }
      const configuration = lua.native
        ? 'Launch main.lua with the native accelerator'
        : 'Launch main.lua';
      const stops: Stop[] = [];
      const sizes: number[] = [];
      let result = await call('start_debugging', { configuration_name: configuration });
      while (result.status === 'stopped') {
        const stop = stopDataOf<Stop>(result);
        stops.push(stop);
        sizes.push(Buffer.byteLength(JSON.stringify(result)));
        result = await call('continue_debugging', { thread_id: stop.thread_id });
      }
      assert.equal(result.status, 'completed', JSON.stringify(result));
      const tick = sc.line('main.lua', 'tick');
      const report = sc.line('main.lua', 'report');
      assert.deepEqual(
        stops.map((s) => s.line),
        [tick, report, tick, report, tick, report],
      );
      const changes = stops.map((s) =>
        Object.fromEntries((s.changed ?? []).map((c) => [c.name, [c.old, c.new]])),
      );
      assert.deepEqual(changes[0], {}, 'the first stop in tick has nothing to compare with');
      assert.deepEqual(changes[1], {}, 'the first stop in report either');
      assert.deepEqual(
        changes[2],
        {
          dt: ['1', '2'],
          damage: ['2', '4'],
          'self.hp': ['8', '4'],
          'ticks (upvalue)': ['1', '2'],
        },
        "tick's second stop compares with its first, not with report's damage",
      );
      assert.deepEqual(changes[3], { round: ['1', '2'], damage: ['100', '200'] });
      const listBytes = Buffer.byteLength(JSON.stringify({ changed: stops[2].changed }));
      console.log(
        `      stop result ${sizes[0]} B at the first stop in tick, ${sizes[2]} B at the second ` +
          `(its changed list: ${listBytes} B)`,
      );
      assert.deepEqual(changes[4], {
        dt: ['2', '3'],
        damage: ['4', '6'],
        'self.hp': ['4', '-2'],
        'ticks (upvalue)': ['2', '3'],
      });
    });
  });
}
