/**
 * Finding the Lua interpreter a launch runs: the first of the configured commands that exists,
 * spawned directly (no shell, so it works the same on Windows), and where that command lives on
 * disk, so that a message can name the very file that lacks something.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { interpreterCannotRun, interpreterNotFound } from './setupErrors';

export interface InterpreterChoice {
  /** Commands to try in order (a name on PATH or a path); the first that exists is used. */
  readonly interpreters: readonly string[];
  /** The user named the interpreter ("luaPath"), rather than the defaults being tried. */
  readonly fromLuaPath?: boolean;
}

export interface SpawnedInterpreter {
  readonly child: ChildProcess;
  readonly interpreter: string;
}

/** The environment of a launched program: ours, with the configuration's additions and removals. */
export function programEnv(changes: Readonly<Record<string, string | null>>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) delete env[key];
    else env[key] = value;
  }
  return env;
}

/** Starts `argv` under the first interpreter of `choice` that exists. */
export async function spawnInterpreter(
  choice: InterpreterChoice,
  argv: readonly string[],
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv },
): Promise<SpawnedInterpreter> {
  for (const interpreter of choice.interpreters) {
    const child = spawn(interpreter, argv, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
    const failure = await new Promise<NodeJS.ErrnoException | undefined>((resolve) => {
      child.once('spawn', () => resolve(undefined));
      child.once('error', (error) => resolve(error));
    });
    if (!failure) return { child, interpreter };
    if (failure.code !== 'ENOENT') throw interpreterCannotRun(interpreter, failure);
  }
  throw interpreterNotFound(choice.interpreters, choice.fromLuaPath === true);
}

/**
 * Where `command` resolves: the file itself when it holds a path (relative to `cwd`), else the
 * first match on PATH (with PATHEXT on Windows). Undefined when it cannot be found.
 */
export function locateCommand(
  command: string,
  env: NodeJS.ProcessEnv,
  cwd: string,
  platform: NodeJS.Platform = process.platform,
): string | undefined {
  const paths = platform === 'win32' ? path.win32 : path.posix;
  const extensions =
    platform === 'win32'
      ? ['', ...(envValue(env, 'PATHEXT') ?? '.EXE;.CMD;.BAT').split(';')]
      : [''];
  const candidates = /[\\/]/.test(command)
    ? [paths.resolve(cwd, command)]
    : (envValue(env, 'PATH') ?? '')
        .split(paths.delimiter)
        .filter((dir) => dir !== '')
        .map((dir) => paths.join(dir, command));
  for (const candidate of candidates) {
    for (const extension of extensions) {
      const file = candidate + extension;
      if (isFile(file)) return file;
    }
  }
  return undefined;
}

/** An environment variable, by its name in any case on Windows (`Path`, `PATH`). */
function envValue(env: NodeJS.ProcessEnv, name: string): string | undefined {
  if (env[name] !== undefined) return env[name];
  const key = Object.keys(env).find((k) => k.toUpperCase() === name);
  return key !== undefined ? env[key] : undefined;
}

function isFile(file: string): boolean {
  try {
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}
