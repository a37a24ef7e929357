/**
 * Golden transcripts of stop states: the stack, the scopes and the variables (expanded one level
 * for tables) as text, with volatile parts normalised — DAP ids become `#1, #2…` in order of
 * appearance, addresses become `0x…`, paths are relative to the fixtures. `UPDATE_GOLDEN=1`
 * rewrites the files instead of comparing, so a reviewer reads behaviour changes as diffs.
 */
import type { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../harness/luaProcess';
import { FIXTURES } from './dapHarness';

export const GOLDEN_DIR = path.join(REPO_ROOT, 'test', 'adapter', 'golden');
export const UPDATE = process.env.UPDATE_GOLDEN === '1';

class Ids {
  private readonly map = new Map<number, string>();
  constructor(private readonly prefix: string) {}
  name(id: number): string {
    if (id === 0) return '0';
    let named = this.map.get(id);
    if (!named) {
      named = `${this.prefix}${this.map.size + 1}`;
      this.map.set(id, named);
    }
    return named;
  }
}

function clean(text: string): string {
  return text
    .replace(/0x[0-9a-fA-F]+/g, '0x…')
    .replace(/(table|function|thread|userdata): (builtin: )?[0-9a-fA-F]{6,}/g, '$1: 0x…');
}

function relative(file: string | undefined): string {
  if (file === undefined) return '(no file)';
  return path.relative(FIXTURES, file).split(path.sep).join('/');
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
      `  ${frameIds.name(frame.id)} ${frame.name} ${relative(frame.source?.path)}:${frame.line}`,
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

/** Compares `actual` with the golden file `name` (or rewrites it with UPDATE_GOLDEN=1). */
export function checkGolden(name: string, actual: string): void {
  const file = path.join(GOLDEN_DIR, `${name}.txt`);
  if (!UPDATE && !fs.existsSync(file)) {
    throw new Error(
      `No golden file ${name}.txt; run the adapter tests with UPDATE_GOLDEN=1 to create it`,
    );
  }
  if (UPDATE) {
    fs.mkdirSync(GOLDEN_DIR, { recursive: true });
    fs.writeFileSync(file, actual);
    return;
  }
  assert.equal(
    actual,
    fs.readFileSync(file, 'utf8'),
    `golden transcript ${name}.txt (UPDATE_GOLDEN=1 rewrites it)`,
  );
}
