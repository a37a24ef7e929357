/**
 * The set-up failures of a session as factories — code and message together, each message saying
 * what was found and how to fix it: a missing or broken interpreter, an interpreter without
 * luasocket or unable to load the runtime, a program that ended before it connected, and an
 * attach that no game reached.
 */
import { SessionError } from '../errors';
import { describeListenHost, isLoopbackHost } from './listenHost';

/** How much of an interpreter's own error text a message quotes. */
const QUOTE_LIMIT = 1500;

export function interpreterNotFound(
  commands: readonly string[],
  fromLuaPath: boolean,
): SessionError {
  return new SessionError(
    'interpreter-not-found',
    fromLuaPath
      ? `The Lua interpreter "${commands.join('", "')}" set in "luaPath" was not found (no such ` +
          'file, and no such command on PATH). Fix "luaPath", or install Lua (Debian/Ubuntu: ' +
          'sudo apt-get install lua5.4 lua-socket).'
      : `No Lua interpreter found: tried ${commands.join(', ')} on PATH. Install Lua (Debian/` +
          'Ubuntu: sudo apt-get install lua5.4 lua-socket), or set "luaPath" in the launch ' +
          'configuration to the interpreter to use.',
  );
}

export function interpreterCannotRun(
  interpreter: string,
  error: NodeJS.ErrnoException,
): SessionError {
  const why =
    error.code === 'EACCES'
      ? 'it is not executable (permission denied)'
      : `${error.message}${error.code ? ` (${error.code})` : ''}`;
  return new SessionError(
    'interpreter-check-failed',
    `Could not start the Lua interpreter ${interpreter}: ${why}. Set "luaPath" to a Lua ` +
      'interpreter that runs.',
  );
}

/** The variable that sets `package.cpath` for one Lua version (`_VERSION`, e.g. "Lua 5.4"). */
export function cpathVariable(luaVersion: string): string {
  const version = /(\d+)\.(\d+)/.exec(luaVersion);
  if (!version || (version[1] === '5' && version[2] === '1')) return 'LUA_CPATH';
  return `LUA_CPATH_${version[1]}_${version[2]}`;
}

/** "lua5.4 (/usr/bin/lua5.4, Lua 5.4)": the command as configured, where it is, what it is. */
export function describeInterpreter(
  command: string,
  location: string | undefined,
  luaVersion = '',
): string {
  const details = [location !== command ? location : undefined, luaVersion || undefined];
  const known = details.filter((d): d is string => d !== undefined);
  return known.length > 0 ? `${command} (${known.join(', ')})` : command;
}

export function luasocketMissing(
  interpreter: string,
  luaVersion: string,
  requireError: string,
): SessionError {
  const versioned = cpathVariable(luaVersion);
  const variables = versioned === 'LUA_CPATH' ? 'LUA_CPATH' : `LUA_CPATH (or ${versioned})`;
  return new SessionError(
    'luasocket-missing',
    `The Lua interpreter ${interpreter} cannot load ` +
      'luasocket, which the debugger needs to connect; the program was not started. ' +
      `require("socket.core") failed: ${quote(requireError)}\n` +
      'Fix: install luasocket for this interpreter (Debian/Ubuntu: sudo apt-get install ' +
      'lua-socket; elsewhere: luarocks install luasocket), or set "luaPath" to an interpreter ' +
      `that has luasocket, or set ${variables} in "env" so that it finds socket/core.`,
  );
}

export function runtimeLoadFailed(
  interpreter: string,
  runtimeDir: string,
  loadError: string,
): SessionError {
  return new SessionError(
    'runtime-load-failed',
    `The Lua interpreter ${interpreter} cannot load the debugger runtime LuaPanda.lua from ` +
      `${runtimeDir}; the program was not started. require("LuaPanda") failed: ` +
      `${quote(loadError)}\nRebuild the extension (node scripts/build-lua.mjs), or fix "runtimePath".`,
  );
}

export function interpreterCheckTimedOut(interpreter: string, timeoutMs: number): SessionError {
  return new SessionError(
    'interpreter-check-failed',
    `The Lua interpreter ${interpreter} did not finish its luasocket check within ` +
      `${timeoutMs / 1000} s, so it was stopped and the program was not started. Check that ` +
      '"luaPath" names a Lua interpreter (lua5.1–5.5 or luajit) that runs without a terminal.',
  );
}

export function interpreterCheckFailed(
  interpreter: string,
  exit: string,
  output: string,
): SessionError {
  return new SessionError(
    'interpreter-check-failed',
    `The Lua interpreter ${interpreter} could not run the debugger's start-up check (it ${exit})` +
      `${output.trim() ? `: ${quote(output)}` : '.'} The program was not started. Check that ` +
      '"luaPath" names a Lua interpreter (lua5.1–5.5 or luajit).',
  );
}

/** A launched program that ended before it connected to the debugger. */
export function programEndedEarly(exit: string, stderr: string): SessionError {
  const text = stderr.trim();
  return new SessionError(
    'program-failed',
    `The Lua program ${exit} before the debugger connected${text ? `: ${text}` : '.'}`,
  );
}

function quote(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > QUOTE_LIMIT ? `${trimmed.slice(0, QUOTE_LIMIT)}…` : trimmed;
}

export interface AttachWait {
  readonly port: number;
  /** The address the session listens on (`connectionHost`) or dials. */
  readonly host: string;
  /** How long it waited (the `connectionTimeout` setting), in seconds. */
  readonly seconds: number;
}

/** The session listened (the game calls `LuaPanda.start`) and nothing connected in time. */
export function noGameConnected(wait: AttachWait): SessionError {
  const { port, host } = wait;
  const remote = isLoopbackHost(host)
    ? `- the game runs on another machine or a device: the debugger listens on ${host} only, ` +
      'which nothing outside this machine reaches. Set "connectionHost": "0.0.0.0" (every ' +
      "interface) or this machine's network address in the launch configuration, pass that " +
      `address to start(), and allow TCP port ${port} in through this machine's firewall (for ` +
      `a phone over USB, adb reverse tcp:${port} tcp:${port} lets the game use 127.0.0.1).\n`
    : "- the game runs on another machine or a device: pass this machine's address to start(), " +
      `and allow TCP port ${port} in through this machine's firewall (a firewall does not ` +
      `block 127.0.0.1; for a phone over USB, adb reverse tcp:${port} tcp:${port}).\n`;
  return new SessionError(
    'no-connection',
    `No game connected within ${wait.seconds} s (connectionTimeout). The debugger listened ` +
      `on port ${port} on ${describeListenHost(host)}, and nothing connected to it. Likely ` +
      'causes:\n' +
      `- the game did not call require("LuaPanda").start(host, ${port}): check that this code ` +
      `runs, and with port ${port} (a game set to another port never arrives here);\n` +
      "- the game's Lua has no luasocket: the runtime then prints a line saying so on the " +
      "game's console (install luasocket, or set LuaPanda.customGetSocketInstance);\n" +
      remote +
      '- the game runs but gives the runtime no chance to try: without the native accelerator ' +
      "(luapanda_native<version> on the game's package.cpath, which tries every 0.25 s on Linux), a " +
      'running game tries again only at LuaPanda.tick() and at garbage-collection cycles; call ' +
      'require("LuaPanda").tick() once per frame.\n' +
      'Set "connectionTimeout" (seconds) in the launch configuration to wait longer.',
  );
}

/** The session dialled a game that listens (`LuaPanda.startServer`) and got no answer in time. */
export function gameNotReached(wait: AttachWait, lastError: string): SessionError {
  const target = `${wait.host}:${wait.port}`;
  return new SessionError(
    'no-connection',
    `Could not connect to the game at ${target} within ${wait.seconds} s (connectionTimeout)` +
      `${lastError ? `; last error: ${lastError}` : ''}. Likely causes: the game did not call ` +
      `require("LuaPanda").startServer("0.0.0.0", ${wait.port}) (or uses another port); ` +
      '"connectionIP" is not the address of the machine or device that runs the game; a ' +
      `firewall there blocks TCP port ${wait.port} (for a phone over USB: adb forward ` +
      `tcp:${wait.port} tcp:${wait.port}). Set "connectionTimeout" (seconds) to wait longer.`,
  );
}
