/**
 * Runs one corpus program in a fresh folder of its own, as a user runs a game: `lua prog.lua`
 * from the program's folder, with the drop-in `LuaPanda.lua` (and, for the native variant, the
 * accelerator's `.so`) copied next to it where the interpreter's default paths find them. Plain
 * and debugged runs get identical folders and a scrubbed environment, so any difference in what
 * they print comes from the runtime.
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { nativeBuildFile } from '../../src/session/link/nativeBuilds';
import { LuaInterpreter, NATIVE_DIR, nativeAbiOf } from '../harness/interpreters';
import { BUNDLE_DIR } from '../runtime/helpers';

export interface RunResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
}

const OUTPUT_LIMIT = 4 * 1024 * 1024;

/** A fresh folder holding the runtime and (native variant) the accelerator. */
export function prepareFolder(lua: LuaInterpreter): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lp-transparency-'));
  fs.copyFileSync(path.join(BUNDLE_DIR, 'LuaPanda.lua'), path.join(dir, 'LuaPanda.lua'));
  if (lua.native) {
    const build = nativeBuildFile(NATIVE_DIR, nativeAbiOf(lua));
    fs.copyFileSync(build, path.join(dir, path.basename(build)));
  }
  return dir;
}

export function writeProgram(dir: string, name: string, source: string): void {
  fs.writeFileSync(path.join(dir, name), source);
}

export function removeFolder(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** The environment without anything that changes where or how Lua looks for code. */
function scrubbedEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^LUA_(PATH|CPATH|INIT)/.test(key)) env[key] = value;
  }
  return env;
}

/**
 * Runs `lua name` in `dir` (or `lua` with `argv`, as launch mode runs `lua -e <preload>`);
 * bounded by `timeoutMs` (the process is killed, `timedOut` set).
 */
export function runLua(
  lua: LuaInterpreter,
  dir: string,
  name: string,
  timeoutMs: number,
  argv: readonly string[] = [name],
): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(lua.command, argv, {
      cwd: dir,
      env: scrubbedEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let size = 0;
    let timedOut = false;
    const collect = (into: Buffer[]) => (chunk: Buffer) => {
      size += chunk.length;
      if (size <= OUTPUT_LIMIT) into.push(chunk);
      else child.kill('SIGKILL');
    };
    child.stdout.on('data', collect(out));
    child.stderr.on('data', collect(err));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      clearTimeout(timer);
      resolve({
        stdout: Buffer.concat(out).toString('latin1'),
        stderr: Buffer.concat(err).toString('latin1'),
        code,
        signal,
        timedOut,
      });
    };
    child.once('error', (error) => {
      err.push(Buffer.from(`spawn failed: ${error.message}\n`));
      finish(null, null);
    });
    child.once('close', finish);
  });
}
