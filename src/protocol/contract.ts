/**
 * The wire contract both sides share, written once: the protocol and runtime versions, the
 * features a runtime announces, the stop commands and the hook modes. The Lua runtime reads the
 * same values from `lua/luapanda/contract.lua`, which scripts/build-lua.mjs generates from this
 * file, and the native accelerator from `native/luapanda_contract.h`, generated likewise (a test
 * fails when either is stale). The Lua build evaluates this file on its own: it may import only
 * src/common/version.ts (and JSON), which import nothing else.
 */
import { PACKAGE_VERSION } from '../common/version';

/** The upstream protocol version both sides speak (`debuggerVer`, `adapterVersion`). */
export const PROTOCOL_VERSION = '3.3.1';

/** What our runtime calls itself in its handshake reply (`runtime`); upstream sends nothing. */
export const RUNTIME_NAME = 'luapanda-mcp';

/** The runtime's version (`runtimeVersion`): the package's, stamped into the Lua build. */
export const RUNTIME_VERSION: string = PACKAGE_VERSION;

/**
 * Features a runtime may announce in its handshake reply, beyond upstream
 * (Docs/Protocol_Extensions.md). Upstream announces none.
 */
export const FEATURES = {
  /** A `pause` command (upstream: a step-in read at its next poll). */
  pause: 'pause',
  /** `setExceptionBreakpoints` and `stopOnException`. */
  exceptions: 'exceptions',
  /** `getVariable` with `start`/`count`, and `childCount` on values. */
  paging: 'paging',
  /** Breakpoints with a `hitCondition`. */
  hitCondition: 'hitCondition',
  /** `{expr}` in logpoint messages. */
  logInterpolation: 'logInterpolation',
  /** Frames named by their function (`name`, `defined`, `module`). */
  functionNames: 'functionNames',
  /** Coroutines as threads (`coroutine` on frames). */
  coroutines: 'coroutines',
  /** `waitConfigurationDone` and `configurationDone`. */
  configurationDone: 'configurationDone',
  /** Per-breakpoint verdicts in the `setBreakPoint` reply, and `breakpointsBound`. */
  breakpointResults: 'breakpointResults',
  /** `setVariable` on fields of tables. */
  setField: 'setField',
  /** The `hotReload` command. */
  hotReload: 'hotReload',
  /** The `listCoroutines` command. */
  listCoroutines: 'listCoroutines',
  /** `setFunctionBreakPoint` and `functionBreakpointsBound`. */
  functionBreakpoints: 'functionBreakpoints',
  /** `conditions` in `setExceptionBreakpoints`: text an error message must contain to stop. */
  exceptionConditions: 'exceptionConditions',
  /** The runtime's own trace lines (`trace` notifications), asked for in `initSuccess`. */
  trace: 'trace',
  /**
   * LuaJIT with its compiler on while attached: compiled code reaches no hook, so a pause takes
   * effect when the program leaves compiled code. Announced only then.
   */
  jitCompiles: 'jitCompiles',
  /** `setCollect` and `collectHit`: collecting breakpoints, which never stop. */
  collect: 'collect',
} as const;
export type Feature = (typeof FEATURES)[keyof typeof FEATURES];

/** The features our runtime announces on every connection, in this order. */
export const RUNTIME_FEATURES: readonly Feature[] = [
  FEATURES.pause,
  FEATURES.exceptions,
  FEATURES.paging,
  FEATURES.hitCondition,
  FEATURES.logInterpolation,
  FEATURES.functionNames,
  FEATURES.coroutines,
  FEATURES.configurationDone,
  FEATURES.breakpointResults,
  FEATURES.setField,
  FEATURES.hotReload,
  FEATURES.functionBreakpoints,
  FEATURES.exceptionConditions,
  FEATURES.trace,
  FEATURES.listCoroutines,
  FEATURES.collect,
];

/** What the session asks of the features a runtime announced. */
export interface FeatureSet {
  has(feature: Feature): boolean;
}

/** The features named in a handshake reply (names this side does not know are left out). */
export function featureSet(names: readonly string[] | undefined): ReadonlySet<Feature> {
  const known: ReadonlySet<string> = new Set(Object.values(FEATURES));
  return new Set((names ?? []).filter((name): name is Feature => known.has(name)));
}

/**
 * Stop notifications, by what stopped the program. The `stopOnStep*` names double as the
 * commands that ask for a step and as their replies (told apart by the callbackId).
 */
export const STOPS = {
  entry: 'stopOnEntry',
  breakpoint: 'stopOnBreakpoint',
  /** `LuaPanda.BP()` in the program's code. */
  codeBreakpoint: 'stopOnCodeBreakpoint',
  step: 'stopOnStep',
  stepIn: 'stopOnStepIn',
  stepOut: 'stopOnStepOut',
  exception: 'stopOnException',
  pause: 'stopOnPause',
} as const;
export type StopCommand = (typeof STOPS)[keyof typeof STOPS];
export const STOP_COMMANDS: readonly StopCommand[] = Object.values(STOPS);

/**
 * The runtime's hook modes (lua/luapanda/hook.lua; the C hook's `LPN_MODE_*`): the cheapest
 * event mask that can still catch a breakpoint, chosen by where breakpoints are on the stack.
 */
export const HOOK_MODES = {
  /** No breakpoint at all: no event but the count (if any). */
  none: -1,
  /** Breakpoints exist, none in a function on the stack: call events. */
  elsewhere: 0,
  /** A function below the running one holds breakpoints: call and return events. */
  below: 1,
  /** The running function holds breakpoints: line events too. */
  inside: 2,
} as const;

/**
 * What the native accelerator (native/) and the Lua runtime must agree on. `apiVersion`: the
 * interface of the native module (native/module.c) the runtime speaks (lua/luapanda/native.lua
 * refuses another); bump it on any change of that interface. `modeDepth`: the deepest stack level
 * the line filters (lua/luapanda/hookfilter.lua, native/hook.c) read a thread's mode from.
 */
export const NATIVE = {
  apiVersion: 8,
  modeDepth: 400,
} as const;
