/**
 * Loads a test scenario: a folder of test/scenarios holding the Lua program(s) of one situation a
 * user meets, with a `-- @marker` comment on every line a test names, and the `launch.json` a
 * user would debug it with. The runtime, adapter and MCP tests read the same folder, so a program
 * and its lines are written once.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { z } from 'zod';
import type { LuaInterpreter } from './interpreters';
import { REPO_ROOT } from './luaProcess';

export const SCENARIOS_DIR = path.join(REPO_ROOT, 'test', 'scenarios');

/** One entry of `configurations` in a launch.json (the adapter checks the attributes). */
export type LaunchConfiguration = {
  type: string;
  request: 'launch' | 'attach';
  name: string;
} & Record<string, unknown>;

const launchJsonSchema = z.object({
  version: z.string().optional(),
  configurations: z.array(
    z.object({ type: z.string(), request: z.enum(['launch', 'attach']), name: z.string() }).loose(),
  ),
});

/** `-- @name` after a comment start; a line may carry several markers. */
const MARKER = /@([A-Za-z_][\w-]*)/g;

export class Scenario {
  /** The scenario's folder (what `${workspaceFolder}` means in its launch.json). */
  readonly dir: string;
  private readonly markerCache = new Map<string, ReadonlyMap<string, number>>();

  constructor(readonly name: string) {
    this.dir = path.join(SCENARIOS_DIR, name);
    if (!fs.existsSync(this.dir)) throw new Error(`No scenario folder test/scenarios/${name}`);
  }

  /** The absolute path of a file of the scenario (`main.lua`, `a/util.lua`). */
  file(...parts: string[]): string {
    return path.join(this.dir, ...parts);
  }

  /** The scenario's files (programs, launch.json, goldens), relative to its folder, with `/`. */
  files(): string[] {
    const walk = (dir: string, prefix: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const relative = `${prefix}${entry.name}`;
        if (entry.isDirectory()) return walk(path.join(dir, entry.name), `${relative}/`);
        return [relative];
      });
    return walk(this.dir, '');
  }

  /** Every marker of `file` with its 1-based line. */
  markers(file: string): ReadonlyMap<string, number> {
    const cached = this.markerCache.get(file);
    if (cached) return cached;
    const found = markersOf(fs.readFileSync(this.file(file), 'utf8'), `${this.name}/${file}`);
    this.markerCache.set(file, found);
    return found;
  }

  /** The 1-based line of `file` that carries `-- @marker`. */
  line(file: string, marker: string): number {
    const line = this.markers(file).get(marker);
    if (line === undefined) throw new Error(`No @${marker} in test/scenarios/${this.name}/${file}`);
    return line;
  }

  /**
   * The configurations of the scenario's launch.json with `${workspaceFolder}` made `folder` (the
   * scenario's own unless told) and, for `launch`, the interpreter under test as `luaPath`.
   */
  configurations(lua?: LuaInterpreter, folder = this.dir): LaunchConfiguration[] {
    const file = this.file('launch.json');
    const errors: ParseError[] = [];
    const raw: unknown = parse(fs.readFileSync(file, 'utf8'), errors, {
      allowTrailingComma: true,
    });
    if (errors.length > 0) {
      const first = errors[0];
      throw new Error(
        `test/scenarios/${this.name}/launch.json: ${printParseErrorCode(first.error)} at offset ${first.offset}`,
      );
    }
    const parsed = launchJsonSchema.parse(raw);
    return parsed.configurations.map((c) => {
      const filled = substitute(c, folder) as LaunchConfiguration;
      return lua && filled.request === 'launch' ? { ...filled, luaPath: lua.command } : filled;
    });
  }

  /** The configuration called `name` (see `configurations`). */
  configuration(name: string, lua?: LuaInterpreter): LaunchConfiguration {
    const all = this.configurations(lua);
    const found = all.find((c) => c.name === name);
    if (!found) {
      throw new Error(
        `No configuration "${name}" in test/scenarios/${this.name}/launch.json (has: ${all.map((c) => c.name).join(', ')})`,
      );
    }
    return found;
  }
}

/** Loads test/scenarios/`name`. */
export function scenario(name: string): Scenario {
  return new Scenario(name);
}

/** The markers of a program's text: a marker must not occur twice in one file. */
export function markersOf(text: string, where: string): ReadonlyMap<string, number> {
  const found = new Map<string, number>();
  text.split('\n').forEach((line, index) => {
    const comment = line.indexOf('--');
    if (comment < 0) return;
    for (const match of line.slice(comment).matchAll(MARKER)) {
      if (found.has(match[1])) {
        throw new Error(
          `@${match[1]} twice in ${where} (lines ${found.get(match[1])} and ${index + 1})`,
        );
      }
      found.set(match[1], index + 1);
    }
  });
  return found;
}

/** `value` without the keys named (e.g. the port of an attach configuration a test chooses). */
export function omit<T extends Record<string, unknown>>(value: T, ...keys: string[]): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k))) as Partial<T>;
}

function substitute(value: unknown, folder: string): unknown {
  if (typeof value === 'string') return value.split('${workspaceFolder}').join(folder);
  if (Array.isArray(value)) return value.map((v) => substitute(v, folder));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, substitute(v, folder)] as const),
    );
  }
  return value;
}
