/**
 * What the tests of the game held in a compiled loop (test/scenarios/engineJit) share, through the
 * debug adapter and through the MCP tools: where a pause may land, the reloaded physics, and the
 * check that the game ran on with the reloaded code after the debugger left.
 */
import { strict as assert } from 'node:assert';
import { LuaProcess } from '../harness/luaProcess';
import { scenario } from '../harness/scenario';

export const compiledLoopGame = scenario('engineJit');
export const SETTLE = compiledLoopGame.line('game/physics.lua', 'settle');
/** The settle loop's lines: its `while` test, its body, where a pause may land. */
export const SETTLE_LOOP = [SETTLE - 1, SETTLE, SETTLE + 1];
/** What the game prints as its frame enters the loop, with the traces LuaJIT finished so far. */
export const SETTLING = /^\[lua\] settling \(traces so far: (\d+)\)$/m;

/** physics.lua's `text` with simulate's energy doubled: what frames print from the reload on. */
export function doubledPhysics(text: string): string {
  const changed = text.replace('GRAVITY * dt * 1e-3', 'GRAVITY * dt * 2e-3');
  assert.notEqual(changed, text);
  return changed;
}

function energies(stdout: string): number[] {
  return [...stdout.matchAll(/^\[lua\] frame \d+: energy (\d+\.\d+)$/gm)].map((m) => Number(m[1]));
}

/**
 * After the debugger left: three more frames come, the game still runs, the loop ended, frames 1-3
 * ran the old simulate and every frame after the loop the reloaded one.
 */
export async function assertRanOnReloaded(engine: LuaProcess): Promise<void> {
  const frames = (engine.stdout.match(/^\[lua\] frame \d+: /gm) ?? []).length;
  await engine.waitForOutput(new RegExp(`^\\[lua\\] frame ${frames + 3}: `, 'm'));
  assert.equal(engine.hasExited, false, 'the game runs until it is closed');
  assert.match(engine.stdout, /^\[lua\] settled after many steps$/m);
  const [first, ...rest] = energies(engine.stdout);
  assert.equal(first, 0.4905);
  assert.deepEqual(energies(engine.stdout).slice(0, 3), [first, first, first]);
  assert.ok(
    rest.slice(2).every((e) => e === 0.981),
    engine.stdout,
  );
}
