/**
 * The test game (test/fixtures/love/game) running in LÖVE under a virtual X server:
 * `xvfb-run -a love <game> port=<port> …` in a process group of its own, since xvfb-run starts
 * Xvfb and the game as its children and none of them may outlive a test. Collects the game's
 * output, waits on it with bounds, and stops the game: politely first (SIGTERM to LÖVE, which
 * SDL turns into a quit event; xvfb-run then stops Xvfb and removes its lock and auth files),
 * then by force, group-wide.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { nativeCpathEnv } from '../../src/session/link/nativeBuilds';
import { NATIVE_DIR } from '../harness/interpreters';
import { REPO_ROOT } from '../harness/luaProcess';
import { Waiters } from '../harness/waiters';
import { groupGone, groupMembers, signalGroup } from './processGroup';

export const GAME_DIR = path.join(REPO_ROOT, 'test', 'fixtures', 'love', 'game');
const RUNTIME_DIR = path.join(REPO_ROOT, 'dist', 'lua');

export interface LoveGameOptions {
  /** Port of the IDE the game's start() connects to. */
  port: number;
  /** Put the native accelerator's builds on the game's `package.cpath`. */
  native: boolean;
  /** Quit after this many frames (0: only when told). */
  frames?: number;
  /** A "frame N update_us T" line every this many frames. */
  every?: number;
  /** The frame that raises the error only LÖVE catches (0: none). */
  raise?: number;
}

export interface GameExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** One "frame" line: the frame number and the mean love.update work time since the last line. */
export interface FrameReport {
  readonly frame: number;
  readonly updateMicros: number;
}

const live = new Set<LoveGame>();

export class LoveGame {
  stdout = '';
  stderr = '';
  readonly exited: Promise<GameExit>;
  private exitInfo: GameExit | undefined;
  private readonly child: ChildProcess;
  private readonly waiters = new Waiters();

  constructor(readonly options: LoveGameOptions) {
    let env: NodeJS.ProcessEnv = {
      ...process.env,
      // LÖVE's LuaJIT reads LUA_PATH like the stand-alone interpreter: the game's
      // require("LuaPanda") finds the bundled runtime without a copy in the game folder.
      LUA_PATH: `${path.join(RUNTIME_DIR, '?.lua')};;`,
      // No sound card on test machines; conf.lua turns audio off too, this is belt and braces.
      SDL_AUDIODRIVER: 'dummy',
    };
    if (options.native) env = { ...env, ...nativeCpathEnv(NATIVE_DIR, env) };
    const args = [`port=${options.port}`, `frames=${options.frames ?? 0}`];
    if (options.every !== undefined) args.push(`every=${options.every}`);
    if (options.raise !== undefined) args.push(`raise=${options.raise}`);
    this.child = spawn('xvfb-run', ['-a', 'love', GAME_DIR, ...args], {
      cwd: GAME_DIR,
      env,
      detached: true, // its own process group, so that Xvfb can be reached too
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.setEncoding('utf8').on('data', (text: string) => {
      this.stdout += text;
      this.waiters.wake();
    });
    this.child.stderr?.setEncoding('utf8').on('data', (text: string) => {
      this.stderr += text;
      this.waiters.wake();
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

  get hasExited(): boolean {
    return this.exitInfo !== undefined;
  }

  /** Every frame line printed so far. */
  reports(): FrameReport[] {
    return [...this.stdout.matchAll(/^frame (\d+) update_us ([\d.]+)$/gm)].map((m) => ({
      frame: Number(m[1]),
      updateMicros: Number(m[2]),
    }));
  }

  /** The last frame the game reported, 0 before its first report. */
  lastFrame(): number {
    return this.reports().at(-1)?.frame ?? 0;
  }

  /** Resolves when the game has reported `count` more frame lines than it had when called. */
  waitForMoreFrames(count: number, timeoutMs: number): Promise<number> {
    const target = this.reports().length + count;
    return this.waitFor(
      () => (this.reports().length >= target ? this.lastFrame() : undefined),
      `${count} more frame lines`,
      timeoutMs,
    );
  }

  /** Resolves when stdout matches `pattern`. */
  waitForOutput(pattern: RegExp, timeoutMs: number): Promise<RegExpMatchArray> {
    return this.waitFor(
      () => this.stdout.match(pattern) ?? undefined,
      `stdout to match ${pattern}`,
      timeoutMs,
    );
  }

  /** Resolves with the exit status of xvfb-run, which is the game's own. */
  async waitForExit(timeoutMs: number): Promise<GameExit> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`The game did not exit within ${timeoutMs} ms; ${this.describe()}`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.exited, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Ends the game and its X server, whatever state they are in, and checks that no process of
   * the group is left. Asks LÖVE to quit, then kills it (xvfb-run still cleans up after it),
   * then kills the whole group.
   */
  async stop(): Promise<void> {
    const pgid = this.child.pid;
    if (pgid === undefined) return;
    const steps: [NodeJS.Signals, boolean][] = [
      ['SIGTERM', false],
      ['SIGKILL', false],
      ['SIGKILL', true],
    ];
    for (const [signal, wholeGroup] of steps) {
      if (await groupGone(pgid, 0)) break;
      if (wholeGroup) signalGroup(pgid, signal);
      else for (const love of this.lovePids()) killQuietly(love, signal);
      if (await groupGone(pgid, 3_000)) break;
    }
    const left = groupMembers(pgid);
    if (left.length > 0) {
      throw new Error(`Processes of the game outlived it: ${JSON.stringify(left)}`);
    }
    await this.exited;
    live.delete(this);
  }

  describe(): string {
    return (
      `stdout (end): ${this.stdout.slice(-600) || '(empty)'}\n` +
      `stderr (end): ${this.stderr.slice(-600) || '(empty)'}`
    );
  }

  private lovePids(): number[] {
    const pgid = this.child.pid;
    if (pgid === undefined) return [];
    return groupMembers(pgid)
      .filter((member) => member.command === 'love')
      .map((member) => member.pid);
  }

  private waitFor<T>(check: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    return this.waiters.wait(
      () => {
        const value = check();
        if (value !== undefined) return value;
        if (this.hasExited) {
          throw new Error(`The game exited while waiting for ${what}; ${this.describe()}`);
        }
        return undefined;
      },
      timeoutMs,
      () => `Timed out after ${timeoutMs} ms waiting for ${what}; ${this.describe()}`,
    );
  }

  private finish(info: GameExit, resolve: (info: GameExit) => void): void {
    if (this.exitInfo) return;
    this.exitInfo = info;
    resolve(info);
    this.waiters.wake();
  }
}

/**
 * Starts the game and waits until it runs its loop (`frames` frame lines printed). Two test
 * runs starting Xvfb at once may pick the same display (xvfb-run -a checks the lock files, then
 * starts the server): the loser exits with "Xvfb failed to start" and is started again.
 */
export async function startGame(
  options: LoveGameOptions,
  frames: number,
  timeoutMs: number,
): Promise<LoveGame> {
  for (let attempt = 1; ; attempt++) {
    const game = new LoveGame(options);
    try {
      await game.waitForMoreFrames(frames, timeoutMs);
      return game;
    } catch (error) {
      await game.stop();
      if (attempt >= 3 || !/Xvfb failed to start/.test(game.stderr)) throw error;
    }
  }
}

/** Sends a signal to a process that may have ended in the meantime. */
function killQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** Stops every game not stopped yet (their groups may outlive xvfb-run); resolves with how many. */
export async function stopAllGames(): Promise<number> {
  const games = [...live];
  await Promise.all(games.map((game) => game.stop()));
  return games.length;
}
