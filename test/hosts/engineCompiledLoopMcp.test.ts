/**
 * The game held in a loop LuaJIT compiles (test/scenarios/engineJit), driven by an agent through
 * the MCP tools (headless luapanda-mcp, the SDK's client, real TCP), as engineCompiledLoop.test.ts
 * drives it through the debug adapter: the game runs in a C engine host first with nobody
 * listening, its frame enters a long loop with no call, no allocation and no `tick()`, and only
 * then does the agent start the attach configuration. Two pauses, a hot reload of the loop's module
 * and a breakpoint set while the loop runs are each answered inside the loop — a timeout result
 * tells the agent to call continue_debugging again to keep waiting, and on the running program it
 * does — and after stop_debugging the frames go on with the reloaded code. Hosts with the
 * accelerator only, as in the adapter's test.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { engineHostVariants, useEngines } from '../harness/engineHost';
import { quietPort } from '../harness/ports';
import {
  SETTLE,
  SETTLE_LOOP,
  SETTLING,
  assertRanOnReloaded,
  compiledLoopGame,
  doubledPhysics,
} from './compiledLoopGame';
import { makeWorkspace, stopDataOf, useHeadless } from '../mcp/headlessFixture';

const game = compiledLoopGame;

interface StopData {
  reason: string;
  thread_id: number;
  line: number | null;
  call_stack: { frame_id: number; function_name: string }[];
  top_frame_variables: { variables: { name: string; value: string }[] } | null;
}

describe('engine hosts: a game held in a compiled loop, driven by an agent', function () {
  this.timeout(60_000);
  const engines = useEngines();
  const { open, call } = useHeadless();

  for (const host of engineHostVariants().hosts.filter((h) => h.native)) {
    const loop = host.isLuaJIT ? 'compiled loop' : 'long loop';
    it(`${host.label}: pause, hot_reload_file and a breakpoint set while it runs are answered inside the ${loop}`, async () => {
      const port = await quietPort();
      const workspace = await makeWorkspace({}, [
        {
          type: 'luapanda',
          request: 'attach',
          name: 'engine game',
          connectionPort: port,
          cwd: '${workspaceFolder}',
        },
      ]);
      await fs.cp(game.dir, workspace, { recursive: true });
      const physics = path.join(workspace, 'game', 'physics.lua');
      await open(workspace);
      const engine = engines.start(host, { root: workspace, bootArgs: [String(port)] });
      await engine.waitForOutput(SETTLING);
      if (host.isLuaJIT) {
        const traces = Number(SETTLING.exec(engine.stdout)?.[1]);
        assert.ok(traces > 0, `LuaJIT compiled the game's loops before the attach: ${traces}`);
      }

      // No breakpoint: the start ends at its deadline with the game attached and running.
      const started = await call('start_debugging', {
        configuration_name: 'engine game',
        timeout_seconds: 3,
      });
      assert.equal(started.status, 'timeout', JSON.stringify(started));
      assert.equal((await call('get_debug_state')).state, 'Running');
      assert.doesNotMatch(engine.stdout, /settled/, 'the frame was still in the loop');

      let threadId = 1;
      for (const round of [1, 2]) {
        const paused = stopDataOf<StopData>(await call('pause_debugging', { timeout_seconds: 10 }));
        assert.equal(paused.reason, 'pause');
        assert.ok(SETTLE_LOOP.includes(paused.line ?? 0), `pause ${round} on line ${paused.line}`);
        assert.equal(paused.call_stack[0]?.function_name, 'physics.settle');
        threadId = paused.thread_id;
        const resumed = await call('continue_debugging', {
          thread_id: threadId,
          timeout_seconds: 1,
        });
        assert.equal(resumed.status, 'timeout', JSON.stringify(resumed));
        assert.match(String(resumed.message), /continue_debugging again to keep waiting/);
        // Called again on the running game, as the message says: it keeps waiting (no error).
        const again = await call('continue_debugging', {
          thread_id: threadId,
          timeout_seconds: 0.5,
        });
        assert.equal(again.status, 'timeout', JSON.stringify(again));
      }

      // Reloaded while the loop runs: simulate's next call (next frame) runs the new code.
      const text = await fs.readFile(physics, 'utf8');
      await fs.writeFile(physics, doubledPhysics(text));
      const reloaded = await call('hot_reload_file', { file_path: physics });
      assert.equal(reloaded.status, 'success', JSON.stringify(reloaded));
      assert.ok(
        (reloaded.replaced as { name: string }[]).some((e) => /simulate$/.test(e.name)),
        JSON.stringify(reloaded),
      );

      // A breakpoint set while the loop runs; continue_debugging on the running game waits for it.
      const set = await call('set_breakpoint', { file_path: physics, line_number: SETTLE });
      assert.equal(set.status, 'success', JSON.stringify(set));
      const hit = stopDataOf<StopData>(
        await call('continue_debugging', { thread_id: threadId, timeout_seconds: 20 }),
      );
      assert.equal(hit.reason, 'breakpoint');
      assert.equal(hit.line, SETTLE);
      const steps = hit.top_frame_variables?.variables.find((v) => v.name === 'steps');
      assert.ok(Number(steps?.value) > 0, JSON.stringify(hit.top_frame_variables));

      const evaluated = await call('evaluate_expression', {
        expression: 'Settling = false',
        frame_id: hit.call_stack[0].frame_id,
        context: 'repl',
      });
      assert.equal(evaluated.status, 'success', JSON.stringify(evaluated));
      assert.equal((await call('remove_breakpoint', { clear_all: true })).status, 'success');
      const out = await call('continue_debugging', {
        thread_id: hit.thread_id,
        timeout_seconds: 1,
      });
      assert.equal(out.status, 'timeout', JSON.stringify(out));
      await engine.waitForOutput(/^\[lua\] frame 5: /m);
      assert.equal((await call('stop_debugging')).status, 'success');

      await assertRanOnReloaded(engine);
    });
  }
});
