/**
 * The engine game through the MCP tools, as an agent drives it (headless luapanda-mcp, the SDK's
 * client, real TCP): the game runs in a C engine host first, its boot script having called
 * `start()` with nobody listening; the agent sets a breakpoint in a module and starts the attach
 * configuration later; the game is reached on its own (the accelerator's wake timer), stops with
 * the names the code gives, raises the planted error again from the agent's evaluate, stops at the
 * line that raised it although only the engine catches it (Lua 5.1-5.4), and runs on after
 * stop_debugging. Hosts with the accelerator only, as in engineDap.test.ts.
 */
import { strict as assert } from 'node:assert';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { engineHostVariants, useEngines } from '../harness/engineHost';
import { quietPort } from '../harness/ports';
import { scenario } from '../harness/scenario';
import { makeWorkspace, stopDataOf, useHeadless } from '../mcp/headlessFixture';

const game = scenario('engine');
const MOVE = game.line('game/player.lua', 'move');
const HIT = game.line('game/player.lua', 'hit');

interface StopData {
  reason: string;
  text: string | null;
  thread_id: number;
  line: number | null;
  call_stack: { frame_id: number; function_name: string; file_path: string; line_number: number }[];
  top_frame_variables: { variables: { name: string; value: string }[] } | null;
}

describe('engine hosts: attached later through the MCP tools', function () {
  this.timeout(60_000);
  const engines = useEngines();
  const { open, call } = useHeadless();

  for (const host of engineHostVariants().hosts.filter((h) => h.native)) {
    const errorStop = host.isLuaJIT ? '' : ', stops at the engine-caught error';
    it(`${host.label}: an agent reaches the running game, stops in a module${errorStop} and lets it run on`, async () => {
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
      await open(workspace);
      const engine = engines.start(host, { root: workspace, bootArgs: [String(port)] });
      await engine.waitForOutput(/^\[lua\] frame 2: /m);

      const player = path.join(workspace, 'game', 'player.lua');
      const set = await call('set_breakpoint', { file_path: player, line_number: MOVE });
      assert.equal(set.status, 'success', JSON.stringify(set));
      const started = await call('start_debugging', {
        configuration_name: 'engine game',
        timeout_seconds: 30,
      });
      const stop = stopDataOf<StopData>(started);
      assert.equal(stop.reason, 'breakpoint');
      assert.equal(stop.line, MOVE);
      assert.equal(stop.call_stack[0]?.function_name, 'Player:move', JSON.stringify(stop));
      assert.equal(stop.call_stack[1]?.file_path, path.join(workspace, 'boot.lua'));
      const dt = stop.top_frame_variables?.variables.find((v) => v.name === 'dt');
      assert.equal(dt?.value, '0.01', JSON.stringify(stop.top_frame_variables));

      const raised = await call('evaluate_expression', {
        expression: 'RaiseNow = true',
        frame_id: stop.call_stack[0].frame_id,
        context: 'repl',
      });
      assert.equal(raised.status, 'success', JSON.stringify(raised));
      const removed = await call('remove_breakpoint', { clear_all: true });
      assert.equal(removed.status, 'success', JSON.stringify(removed));
      const errorsBefore = (engine.stderr.match(/^\[engine\] error in Update/gm) ?? []).length;
      if (!host.isLuaJIT) {
        const next = await call('continue_debugging', {
          thread_id: stop.thread_id,
          timeout_seconds: 20,
        });
        const error = stopDataOf<StopData>(next);
        assert.equal(error.reason, 'exception');
        assert.equal(error.line, HIT);
        assert.match(error.text ?? '', /attempt to perform arithmetic/);
        const damage = error.top_frame_variables?.variables.find((v) => v.name === 'damage');
        assert.equal(damage?.value, 'nil', JSON.stringify(error.top_frame_variables));
        assert.equal(
          (engine.stderr.match(/^\[engine\] error in Update/gm) ?? []).length,
          errorsBefore,
          'stopped before the engine logged it',
        );
      }
      const ended = await call('stop_debugging');
      assert.equal(ended.status, 'success', JSON.stringify(ended));
      const frames = (engine.stdout.match(/^\[lua\] frame \d+: /gm) ?? []).length;
      await engine.waitForOutput(new RegExp(`^\\[lua\\] frame ${frames + 3}: `, 'm'));
      assert.equal(
        (engine.stderr.match(/^\[engine\] error in Update/gm) ?? []).length,
        errorsBefore + 1,
        engine.stderr,
      );
      assert.equal(engine.hasExited, false, 'the game runs until it is closed');
    });
  }
});
