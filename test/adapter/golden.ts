/**
 * Golden transcripts of scenarios: the stop states (stack, scopes, variables expanded one level for
 * tables) with volatile parts normalised — DAP ids become `#1, #2…` in order of appearance,
 * addresses `0x…`, paths relative to test/scenarios — usually within the DAP event sequence
 * (eventRecord.ts). Each scenario has one `golden.txt`, and `golden.<interpreter>.txt` only for an
 * interpreter whose transcript differs. `UPDATE_GOLDEN=1` writes the files instead of comparing
 * (after the run, once every interpreter's transcript is known), so a reviewer reads behaviour
 * changes as diffs.
 */
import type { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REQUIRED_INTERPRETERS, luaInterpreters } from '../harness/interpreters';
import { SCENARIOS_DIR } from '../harness/scenario';
import { Ids, scenarioPath } from './eventRecord';

export const UPDATE = process.env.UPDATE_GOLDEN === '1';

function clean(text: string): string {
  return text
    .replace(/0x[0-9a-fA-F]+/g, '0x…')
    .replace(/(table|function|thread|userdata): (builtin: )?[0-9a-fA-F]{6,}/g, '$1: 0x…');
}

/** The stop of `threadId` as text: frames, and for the top `frames` frames their scopes. */
export async function transcript(
  dc: DebugClient,
  threadId: number,
  options: { frames?: number; skipScopes?: string[] } = {},
): Promise<string> {
  const frameIds = new Ids('frame#');
  const ids = new Ids('#');
  const lines: string[] = [];
  const trace = await dc.stackTraceRequest({ threadId });
  lines.push('stack:');
  for (const frame of trace.body.stackFrames) {
    lines.push(
      `  ${frameIds.name(frame.id)} ${frame.name} ${scenarioPath(frame.source?.path)}:${frame.line}`,
    );
  }
  const skip = new Set(options.skipScopes ?? ['Globals']);
  for (const frame of trace.body.stackFrames.slice(0, options.frames ?? 1)) {
    const scopes = await dc.scopesRequest({ frameId: frame.id });
    for (const scope of scopes.body.scopes) {
      lines.push(
        `scope ${scope.name} of ${frameIds.name(frame.id)} (${ids.name(scope.variablesReference)}${scope.expensive ? ', expensive' : ''}):`,
      );
      if (skip.has(scope.name)) continue;
      await listVariables(dc, scope.variablesReference, ids, lines, '  ', 2);
    }
  }
  return `${clean(lines.join('\n'))}\n`;
}

async function listVariables(
  dc: DebugClient,
  ref: number,
  ids: Ids,
  lines: string[],
  indent: string,
  depth: number,
): Promise<void> {
  const response = await dc.variablesRequest({ variablesReference: ref });
  for (const v of response.body.variables as DebugProtocol.Variable[]) {
    // The runtime's own global and internal values are not the program's.
    if (v.name === 'LuaPanda' || v.name === '_ENV') continue;
    const expand = v.variablesReference > 0 ? ` → ${ids.name(v.variablesReference)}` : '';
    lines.push(`${indent}${v.name}: ${v.type ?? '?'} = ${v.value}${expand}`);
    if (v.variablesReference > 0 && depth > 1 && v.type === 'table') {
      await listVariables(dc, v.variablesReference, ids, lines, `${indent}  `, depth - 1);
    }
  }
}

/** The golden files of the scenario folder `dir`: the common one and an interpreter's override. */
export function goldenFiles(dir: string, interpreter: string) {
  return {
    common: path.join(dir, 'golden.txt'),
    override: path.join(dir, `golden.${interpreter}.txt`),
  };
}

/** The file `interpreter`'s transcript is compared with: its override if any, else golden.txt. */
export function goldenFileFor(dir: string, interpreter: string): string {
  const { common, override } = goldenFiles(dir, interpreter);
  return fs.existsSync(override) ? override : common;
}

/** Transcripts of this run by scenario and interpreter, written after the run when updating. */
const collected = new Map<string, Map<string, string>>();

/**
 * Compares `actual` with the scenario's golden file for `interpreter` (its override if there is
 * one, else golden.txt); with UPDATE_GOLDEN=1 keeps it for `writeGoldens` instead.
 */
export function checkGolden(scenario: string, interpreter: string, actual: string): void {
  if (UPDATE) {
    const byInterpreter = collected.get(scenario) ?? new Map<string, string>();
    byInterpreter.set(interpreter, actual);
    collected.set(scenario, byInterpreter);
    return;
  }
  const file = goldenFileFor(path.join(SCENARIOS_DIR, scenario), interpreter);
  if (!fs.existsSync(file)) {
    throw new Error(
      `No golden file for ${scenario}; run its test with UPDATE_GOLDEN=1 to create test/scenarios/${scenario}/golden.txt`,
    );
  }
  assert.equal(
    actual,
    fs.readFileSync(file, 'utf8'),
    `golden transcript test/scenarios/${scenario}/${path.basename(file)} (UPDATE_GOLDEN=1 rewrites it)`,
  );
}

/** Writes what `checkGolden` kept this run (see `writeScenarioGoldens`). */
export function writeGoldens(): void {
  const installed = luaInterpreters().map((l) => l.command);
  for (const [scenario, byInterpreter] of collected) {
    writeScenarioGoldens(path.join(SCENARIOS_DIR, scenario), byInterpreter, installed);
  }
  collected.clear();
}

/**
 * Writes the golden files of the scenario folder `dir` from the transcripts of the interpreters
 * that ran. When all of `installed` ran, golden.txt becomes the transcript most of them agree on;
 * otherwise golden.txt stays (or is created from those that ran). An interpreter that ran gets an
 * override only where it differs from golden.txt, and loses one that no longer differs.
 */
export function writeScenarioGoldens(
  dir: string,
  byInterpreter: ReadonlyMap<string, string>,
  installed: readonly string[],
): void {
  const { common } = goldenFiles(dir, '');
  const existing = fs.existsSync(common) ? fs.readFileSync(common, 'utf8') : undefined;
  const allRan = installed.every((name) => byInterpreter.has(name));
  const text = allRan || existing === undefined ? mostCommon(byInterpreter) : existing;
  if (text !== existing) fs.writeFileSync(common, text);
  for (const [interpreter, actual] of byInterpreter) {
    const { override } = goldenFiles(dir, interpreter);
    if (actual === text) fs.rmSync(override, { force: true });
    else fs.writeFileSync(override, actual);
  }
}

/** The transcript most interpreters produced; a tie goes to the first in REQUIRED_INTERPRETERS. */
function mostCommon(byInterpreter: ReadonlyMap<string, string>): string {
  const order = (name: string) => {
    const index = (REQUIRED_INTERPRETERS as readonly string[]).indexOf(name);
    return index < 0 ? REQUIRED_INTERPRETERS.length : index;
  };
  const counts = new Map<string, { count: number; first: number }>();
  for (const [interpreter, text] of byInterpreter) {
    const seen = counts.get(text) ?? { count: 0, first: order(interpreter) };
    counts.set(text, { count: seen.count + 1, first: Math.min(seen.first, order(interpreter)) });
  }
  const ranked = [...counts].sort(([, a], [, b]) => b.count - a.count || a.first - b.first);
  return ranked[0][0];
}

// Mocha's root `after` runs once all suites are done, when every interpreter's transcript is in.
if (UPDATE && typeof after === 'function') after(writeGoldens);
