/**
 * The test engine hosts (test/hosts/engine.c, built per interpreter by scripts/build-hosts.mjs
 * into out/hosts/<platform>-<arch>/engine-<interpreter>): which ones exist, and how a test runs
 * one on a script root — frames, frame period, heap ballast, the boot script's arguments (the
 * port its `start()` line reads), the runtime on LUA_PATH and, for the native variant, the
 * accelerator on LUA_CPATH. A host runs as a LuaProcess, so its output is collected, waits are
 * bounded and the root hooks kill and reap whatever a test leaves running.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { nativeBuildFile } from '../../src/session/link/nativeBuilds';
import { LuaInterpreter, NATIVE_DIR, nativeAbiOf } from './interpreters';
import { LuaExit, LuaProcess, REPO_ROOT } from './luaProcess';

/** The interpreters a host is built for (scripts/build-hosts.mjs, HOSTS). */
export const HOST_NAMES = ['lua5.1', 'lua5.2', 'lua5.3', 'lua5.4', 'lua5.5', 'luajit'] as const;
export type HostName = (typeof HOST_NAMES)[number];

export const HOSTS_DIR = path.join(
  REPO_ROOT,
  'out',
  'hosts',
  `${process.platform}-${process.arch}`,
);

/** The runtime bundle the hosts load through package.path (dist/lua/LuaPanda.lua). */
const RUNTIME_DIR = path.join(REPO_ROOT, 'dist', 'lua');

/**
 * An engine host as the tests treat an interpreter: `command` is the host's executable, the
 * version is the one it embeds (so that nativeAbiOf and the differential suite's version checks
 * apply), `label` names it in test titles (`engine-lua5.4 pure`).
 */
export interface EngineHost extends LuaInterpreter {
  readonly host: HostName;
}

const VERSIONS: Record<HostName, string> = {
  'lua5.1': 'Lua 5.1',
  'lua5.2': 'Lua 5.2',
  'lua5.3': 'Lua 5.3',
  'lua5.4': 'Lua 5.4',
  'lua5.5': 'Lua 5.5',
  luajit: 'Lua 5.1 LuaJIT',
};

export function hostFile(name: HostName): string {
  return path.join(HOSTS_DIR, `engine-${name}`);
}

/** Why a host cannot be used here, or undefined when it is built. */
export function hostMissing(name: HostName): string | undefined {
  if (fs.existsSync(hostFile(name))) return undefined;
  return (
    `not built (${path.relative(REPO_ROOT, hostFile(name))}): \`npm run compile\` ` +
    'builds it where the static library exists (Debian: liblua5.X-dev or libluajit-5.1-dev, and ' +
    "lua-socket-dev; `npm run setup` installs them, and builds Lua 5.5's)"
  );
}

/**
 * The built hosts, each in a pure and (where the accelerator is built) a native variant. In CI
 * (CI=true, or LUAPANDA_REQUIRE_HOSTS=1) every host and every accelerator build must exist: a
 * missing one throws. Elsewhere the missing ones are returned with the reason, for the tests to
 * skip loudly.
 */
export function engineHostVariants(): {
  hosts: EngineHost[];
  missing: { name: HostName; why: string }[];
} {
  const required = process.env.CI === 'true' || process.env.LUAPANDA_REQUIRE_HOSTS === '1';
  const hosts: EngineHost[] = [];
  const missing: { name: HostName; why: string }[] = [];
  for (const name of HOST_NAMES) {
    const why = hostMissing(name);
    if (why) {
      if (required) throw new Error(`CI needs every engine host: engine-${name} ${why}`);
      missing.push({ name, why });
      continue;
    }
    const base = {
      command: hostFile(name),
      version: VERSIONS[name],
      isLuaJIT: name === 'luajit',
      host: name,
    };
    hosts.push({ ...base, native: false, label: `engine-${name} pure` });
    const build = nativeBuildFile(NATIVE_DIR, nativeAbiOf(base));
    if (fs.existsSync(build)) hosts.push({ ...base, native: true, label: `engine-${name} native` });
    else if (required) throw new Error(`CI needs the native build ${build}`);
  }
  return { hosts, missing };
}

export interface EngineOptions {
  /** The script root: boot.lua and the modules the host's searcher loads. */
  readonly root: string;
  /** Frames to run; 0 (default) runs until the script sets the global `Quit`. */
  readonly frames?: number;
  /** Sleep between frames (default 10 ms, the host's own default). */
  readonly periodMs?: number;
  /** Megabytes of Lua tables allocated at boot, for a game-sized heap (default 0). */
  readonly ballastMb?: number;
  /**
   * The message handler of the calls into Lua after boot: the host's C function (default), the
   * global `__G__TRACKBACK__` as Cocos2d-x calls it, or none (`lua_pcall(L, n, r, 0)`).
   */
  readonly handler?: 'c' | 'lua' | 'none';
  /** The boot script's `...`, e.g. `[String(port)]` for a boot script that starts the runtime. */
  readonly bootArgs?: readonly string[];
  /** Put dist/lua on LUA_PATH so that `require("LuaPanda")` finds the runtime (default true). */
  readonly runtime?: boolean;
  readonly cwd?: string;
  readonly env?: NodeJS.ProcessEnv;
}

/** The host's command line after its executable. */
export function engineArgs(options: EngineOptions): string[] {
  const args = ['--root', options.root];
  if (options.frames !== undefined) args.push('--frames', String(options.frames));
  if (options.periodMs !== undefined) args.push('--period-ms', String(options.periodMs));
  if (options.ballastMb !== undefined) args.push('--ballast-mb', String(options.ballastMb));
  if (options.handler !== undefined) args.push('--handler', options.handler);
  if (options.bootArgs && options.bootArgs.length > 0) args.push('--', ...options.bootArgs);
  return args;
}

/**
 * Starts `host` on a script root. The process is a LuaProcess (its first argument stands where an
 * interpreter's script would): `stdout`, `stderr`, `waitForOutput`, `waitForExit` and `kill` work
 * as for an interpreter, and the root hooks kill it if the test does not end it.
 */
export function startEngine(host: EngineHost, options: EngineOptions): LuaProcess {
  const [first, ...rest] = engineArgs(options);
  return new LuaProcess(host, first, {
    args: rest,
    cwd: options.cwd,
    env: options.env,
    luaPath: options.runtime === false ? [] : [RUNTIME_DIR],
  });
}

/**
 * For a describe block: the engines a test starts through `start` are killed after it, and their
 * end awaited, before the block's later afterEach hooks (register it first) and the next test.
 */
export function useEngines(): {
  start(host: EngineHost, options: EngineOptions): LuaProcess;
} {
  let started: LuaProcess[] = [];
  afterEach(async () => {
    const ending = started;
    started = [];
    for (const engine of ending) engine.kill();
    await Promise.all(ending.map((engine) => engine.exited));
  });
  return {
    start(host, options) {
      const engine = startEngine(host, options);
      started.push(engine);
      return engine;
    },
  };
}

export interface EngineRun {
  readonly stdout: string;
  readonly stderr: string;
  readonly exit: LuaExit;
}

/** Runs `host` to its end (bounded: killed and failed after `timeoutMs`) and returns its output. */
export async function runEngine(
  host: EngineHost,
  options: EngineOptions,
  timeoutMs = 30_000,
): Promise<EngineRun> {
  const engine = startEngine(host, options);
  const exit = await engine.waitForExit(timeoutMs);
  return { stdout: engine.stdout, stderr: engine.stderr, exit };
}
