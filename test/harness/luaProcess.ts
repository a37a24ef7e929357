/**
 * Real Lua processes for tests: spawn an interpreter on a script, collect its output, wait for
 * lines or for its exit with bounded waits, and make sure none outlives the test that started it
 * (`killAllLuaProcesses` runs after every test through the root hooks).
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { nativeCpathEnv } from '../../src/session/link/nativeBuilds';
import { LuaInterpreter, NATIVE_DIR } from './interpreters';
import { Waiters } from './waiters';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

export interface SpawnLuaOptions {
  args?: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Extra directories for `package.path` (`DIR/?.lua`), searched first. */
  luaPath?: string[];
}

export interface LuaExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

const live = new Set<LuaProcess>();

export class LuaProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<LuaExit>;
  private exitInfo: LuaExit | undefined;
  private readonly child: ChildProcess;
  private readonly waiters = new Waiters();

  constructor(
    readonly interpreter: LuaInterpreter,
    script: string,
    options: SpawnLuaOptions = {},
  ) {
    let env: NodeJS.ProcessEnv = { ...process.env, ...options.env };
    if (interpreter.native) env = { ...env, ...nativeCpathEnv(NATIVE_DIR, env) };
    if (options.luaPath && options.luaPath.length > 0) {
      const extra = options.luaPath.map((dir) => path.join(dir, '?.lua')).join(';');
      env.LUA_PATH = `${extra};;`;
      // LuaJIT and 5.1 read LUA_PATH; 5.4 prefers LUA_PATH_5_4 when it is set, 5.5 LUA_PATH_5_5.
      env.LUA_PATH_5_5 = env.LUA_PATH;
      env.LUA_PATH_5_4 = env.LUA_PATH;
      env.LUA_PATH_5_3 = env.LUA_PATH;
      env.LUA_PATH_5_2 = env.LUA_PATH;
    }
    this.child = spawn(interpreter.command, [script, ...(options.args ?? [])], {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.setEncoding('utf8').on('data', (text: string) => {
      this.stdout += text;
      this.wake();
    });
    this.child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      this.stderr += text;
      this.wake();
    });
    live.add(this);
    this.exited = new Promise((resolve) => {
      this.child.once('error', (error) => {
        this.stderr += `spawn failed: ${error.message}\n`;
        this.finish({ code: null, signal: null }, resolve);
      });
      this.child.once('close', (code, signal) => this.finish({ code, signal }, resolve));
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get hasExited(): boolean {
    return this.exitInfo !== undefined;
  }

  /** Resolves when stdout holds a line matching `pattern`; rejects on exit or timeout. */
  waitForOutput(pattern: RegExp, timeoutMs = 10_000): Promise<RegExpMatchArray> {
    return this.waitFor(() => this.stdout.match(pattern), `stdout to match ${pattern}`, timeoutMs);
  }

  /** Resolves with the exit status; rejects (after killing the process) on timeout. */
  async waitForExit(timeoutMs = 10_000): Promise<LuaExit> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.kill();
        reject(new Error(`${this.describe()} did not exit within ${timeoutMs} ms`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  kill(): void {
    if (!this.hasExited) this.child.kill('SIGKILL');
  }

  describe(): string {
    return `${this.interpreter.command} (pid ${this.pid}); stderr: ${this.stderr.slice(-500) || '(empty)'}`;
  }

  private waitFor<T>(
    check: () => T | null | undefined,
    what: string,
    timeoutMs: number,
  ): Promise<T> {
    return this.waiters.wait(
      () => {
        const value = check();
        if (value) return value;
        if (this.hasExited) {
          throw new Error(
            `${this.describe()} exited while waiting for ${what}; stdout: ${this.stdout.slice(-500)}`,
          );
        }
        return undefined;
      },
      timeoutMs,
      () => `Timed out after ${timeoutMs} ms waiting for ${what}; ${this.describe()}`,
    );
  }

  private wake(): void {
    this.waiters.wake();
  }

  private finish(info: LuaExit, resolve: (info: LuaExit) => void): void {
    if (this.exitInfo) return;
    this.exitInfo = info;
    live.delete(this);
    resolve(info);
    this.wake();
  }
}

export function spawnLua(
  interpreter: LuaInterpreter,
  script: string,
  options?: SpawnLuaOptions,
): LuaProcess {
  return new LuaProcess(interpreter, script, options);
}

/** Kills every Lua process a test left running and waits for them to go. */
export async function killAllLuaProcesses(): Promise<number> {
  const leftovers = [...live];
  for (const lua of leftovers) lua.kill();
  await Promise.all(leftovers.map((lua) => lua.exited));
  return leftovers.length;
}
