/**
 * A workspace for the MCP tests of one fixture folder (under test/fixtures, or a scenario's
 * absolute folder): its Lua files, and a launch configuration per file (named after the file
 * without `.lua`) that runs it under the given interpreter; or of a scenario, with its own
 * launch.json.
 */
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { makeWorkspace } from './headlessFixture';
import type { LuaInterpreter } from '../harness/interpreters';
import type { Scenario } from '../harness/scenario';
import { REPO_ROOT } from '../harness/luaProcess';

export async function luaWorkspace(lua: LuaInterpreter, fixtureFolder: string): Promise<string> {
  const folder = path.resolve(REPO_ROOT, 'test', 'fixtures', fixtureFolder);
  const files: Record<string, string> = {};
  const configurations: object[] = [];
  for (const file of (await fs.readdir(folder)).filter((f) => f.endsWith('.lua'))) {
    files[file] = await fs.readFile(path.join(folder, file), 'utf8');
    configurations.push({
      type: 'luapanda',
      request: 'launch',
      name: file.slice(0, -'.lua'.length),
      program: `\${workspaceFolder}/${file}`,
      cwd: '${workspaceFolder}',
      luaPath: lua.command,
    });
  }
  return makeWorkspace(files, configurations);
}

/** The 1-based line of `file` (in the fixture folder) that holds `marker`. */
export function lineOf(fixtureFolder: string, file: string, marker: string): number {
  const text = readFileSync(
    path.resolve(REPO_ROOT, 'test', 'fixtures', fixtureFolder, file),
    'utf8',
  );
  const index = text.split('\n').findIndex((line) => line.includes(marker));
  if (index < 0) throw new Error(`no line with "${marker}" in ${file}`);
  return index + 1;
}

/**
 * A workspace holding a copy of a scenario's programs (test/scenarios), with the configurations
 * of its launch.json, launches run under `lua`.
 */
export async function scenarioWorkspace(lua: LuaInterpreter, sc: Scenario): Promise<string> {
  const programs = sc.files().filter((f) => f.endsWith('.lua'));
  const folder = await makeWorkspace({}, sc.configurations(lua, '${workspaceFolder}'));
  for (const file of programs) {
    await fs.mkdir(path.dirname(path.join(folder, file)), { recursive: true });
    await fs.copyFile(sc.file(file), path.join(folder, file));
  }
  return folder;
}
