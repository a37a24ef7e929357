/**
 * Debugging the running LÖVE game through the out-of-process adapter (test/adapter/dapHarness):
 * attach to a game that already runs and measure how long it takes to connect, find the marked
 * lines of the game's files, read a frame's scopes.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { BreakpointMap, DapTest } from '../adapter/dapHarness';
import { GAME_DIR, LoveGame } from './loveGame';

/** How long a running game may take to notice the IDE (the adapter gives up after this). */
export const ATTACH_BOUND_S = 14;

/** A file of the test game, by its path inside the game folder. */
export function gameFile(relative: string): string {
  return path.join(GAME_DIR, ...relative.split('/'));
}

/** The line of `relative` holding the comment `-- @marker`. */
export function lineOf(relative: string, marker: string): number {
  const lines = fs.readFileSync(gameFile(relative), 'utf8').split('\n');
  const index = lines.findIndex((l) => new RegExp(`--.*@${marker}\\b`).test(l));
  if (index < 0) throw new Error(`No @${marker} in ${relative}`);
  return index + 1;
}

/**
 * Starts an attach session on the game's port — the game runs already and its start() found
 * nobody listening — and resolves when the game has connected, with the milliseconds from the
 * adapter listening to the game connected. Rejects after ATTACH_BOUND_S with what the game and
 * the adapter said.
 */
export async function attachRunning(
  t: DapTest,
  game: LoveGame,
  breakpoints: BreakpointMap = {},
): Promise<number> {
  const listening = t.waitForOutput(/Waiting for a Lua program/).then(() => performance.now());
  listening.catch(() => undefined); // awaited below only when the attach succeeded
  try {
    await t.start(
      'attach',
      { connectionPort: game.options.port, cwd: GAME_DIR, connectionTimeout: ATTACH_BOUND_S },
      { breakpoints },
    );
  } catch (error) {
    throw new Error(
      `The running game did not connect within ${ATTACH_BOUND_S} s ` +
        `(${error instanceof Error ? error.message : String(error)}).\n` +
        `Adapter: ${t.output}\nGame ${game.describe()}`,
    );
  }
  return performance.now() - (await listening);
}

/** Every scope of a stack frame by name (Locals, Upvalues, Globals), as name → value. */
export async function scopeValues(
  t: DapTest,
  frameId: number,
): Promise<Record<string, Record<string, string>>> {
  const scopes = await t.dc.scopesRequest({ frameId });
  const result: Record<string, Record<string, string>> = {};
  for (const scope of scopes.body.scopes) {
    if (scope.expensive) continue; // Globals: big, and not what these tests read
    const variables = await t.dc.variablesRequest({
      variablesReference: scope.variablesReference,
    });
    result[scope.name] = Object.fromEntries(variables.body.variables.map((v) => [v.name, v.value]));
  }
  return result;
}

/** Evaluates `expression` in the top frame of a stop (REPL context: assignments stick). */
export async function repl(t: DapTest, frameId: number, expression: string): Promise<string> {
  const response = await t.dc.evaluateRequest({ expression, frameId, context: 'repl' });
  return response.body.result;
}
