/**
 * What a user waiting on a running game is told: for an attach that has lasted a moment, which of
 * the cases they are in (the game has not called start() yet, or it runs and has not reached a
 * point where the runtime can act) and what to do in each; for a command the game did not answer
 * (a pause, a hot reload), why a game reads commands late and the fix. The VS Code attach wait,
 * the MCP start_debugging wait and the session's timeouts show them.
 */

/** How long an attach wait lasts before the hint is shown. */
export const ATTACH_HINT_AFTER_MS = 2000;

/**
 * The hint for a wait on `port`; `dialing`: the session connects to a game that listens
 * (`startServer`) instead of listening itself.
 */
export function slowAttachHint(port: number, dialing = false): string {
  const call = dialing
    ? `require("LuaPanda").startServer(host, ${port})`
    : `require("LuaPanda").start(host, ${port})`;
  return (
    `No game yet after ${ATTACH_HINT_AFTER_MS / 1000} s. If the game has not called ${call} ` +
    'yet, it connects as soon as it does. If it is already running, it tries again whenever ' +
    'its Lua code gives the runtime a chance: every 0.25 s (1 s across machines) with the native accelerator on Linux ' +
    "(luapanda_native<version> on the game's package.cpath), within about 0.3 s on Lua 5.1 " +
    '(a count hook), otherwise only at its next ' +
    'LuaPanda.tick() or garbage-collection cycle — a game that allocates little and never calls ' +
    'LuaPanda.tick() may take minutes. Fix: call require("LuaPanda").tick() once per frame (see ' +
    'Docs/Engines.md for your engine), or copy the native accelerator next to LuaPanda.lua.'
  );
}

/**
 * Why a running game may answer a command late, and the fix: appended to a command's timeout
 * (a pause, a hot reload).
 */
export const SLOW_POLL_HINT =
  'A running game reads commands when its Lua code gives the runtime a chance: at once with the ' +
  "native accelerator (luapanda_native<version> on the game's package.cpath; under LuaJIT even " +
  'in a loop running compiled), otherwise at its count-hook poll (every pollInstructions VM ' +
  'instructions), a garbage-collection cycle or LuaPanda.tick() — a game that runs little Lua ' +
  'per frame (an engine that sleeps between frames) should call require("LuaPanda").tick() ' +
  'once per frame.';
