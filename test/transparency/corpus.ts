/**
 * The corpus of the differential transparency suite: the Lua programs in
 * test/fixtures/transparency, each with its header (line 1 `-- transparency: <title>`, line 2
 * `-- versions: …`) and the one line marked `-- @bp` where the breakpoint modes act.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LuaInterpreter } from '../harness/interpreters';
import { REPO_ROOT } from '../harness/luaProcess';

export const CORPUS_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'transparency');

export interface CorpusProgram {
  /** File name, e.g. `errors_levels.lua`. */
  readonly name: string;
  readonly title: string;
  readonly source: string;
  /** 1-based line of `-- @bp`. */
  readonly bpLine: number;
  /** `all`, or the interpreters it runs on (`5.1`…`5.5`, `luajit`). */
  readonly versions: readonly string[] | 'all';
}

function parseProgram(name: string, source: string): CorpusProgram {
  const lines = source.split('\n');
  const title = /^-- transparency: (.+)$/.exec(lines[0] ?? '')?.[1];
  if (!title) throw new Error(`${name}: line 1 must be "-- transparency: <title>"`);
  const versionText = /^-- versions: (.+)$/.exec(lines[1] ?? '')?.[1]?.trim();
  if (!versionText) throw new Error(`${name}: line 2 must be "-- versions: <list>"`);
  const bpLines = lines.flatMap((l, i) => (/--\s*@bp\s*$/.test(l) ? [i + 1] : []));
  if (bpLines.length !== 1) throw new Error(`${name}: needs exactly one "-- @bp" line`);
  const versions =
    versionText === 'all' ? 'all' : versionText.split(',').map((v) => v.trim().toLowerCase());
  return { name, title, source, bpLine: bpLines[0], versions };
}

export function loadCorpus(): CorpusProgram[] {
  if (!fs.existsSync(CORPUS_DIR)) return [];
  return fs
    .readdirSync(CORPUS_DIR)
    .filter((f) => f.endsWith('.lua'))
    .sort()
    .map((f) => parseProgram(f, fs.readFileSync(path.join(CORPUS_DIR, f), 'utf8')));
}

/** The version key of an interpreter as the corpus headers spell it. */
export function versionKey(lua: LuaInterpreter): string {
  if (lua.isLuaJIT) return 'luajit';
  return /Lua (5\.\d)/.exec(lua.version)?.[1] ?? lua.version;
}

export function runsOn(program: CorpusProgram, lua: LuaInterpreter): boolean {
  return program.versions === 'all' || program.versions.includes(versionKey(lua));
}

/**
 * The program as a game that loads the debugger: `start()` in front of line 1, lines unmoved (and
 * no local of its own, which the program's introspection would see); `hookStrategy` set first.
 */
export function withRuntime(program: CorpusProgram, port: number, hookStrategy?: string): string {
  const setting = hookStrategy
    ? `require("LuaPanda").settings.hookStrategy = ${JSON.stringify(hookStrategy)} `
    : '';
  return `${setting}require("LuaPanda").start("127.0.0.1", ${port}) ${program.source}`;
}
