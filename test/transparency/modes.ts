/**
 * The ways the differential suite runs a program under the runtime, and the test IDE that plays
 * each one over real TCP: nobody listening; attached with nothing set; a breakpoint in another
 * file; a breakpoint hit every time (continued at once, variables read at the first stops); a
 * never-true condition on the hot line; a stretch of steps from the first hit; and function
 * breakpoints: on the function that holds the hot line when its definition names it, and on a
 * name that never binds (so that every function's first call tries the pending name); and a
 * collecting breakpoint on the hot line (values sent, never a stop). The IDE also
 * continues any exception stop, as a user would, so the program's own end is compared too.
 */
import * as fs from 'node:fs';
import type { LuaInterpreter } from '../harness/interpreters';
import * as path from 'node:path';
import {
  LuaConnection,
  LuaListener,
  LuaNotification,
  WireBreakpoint,
  initSuccessInfo,
} from '../../src/protocol';
import { FunctionSites } from '../../src/session/breakpoints/functionSites';
import { normalizePath } from '../../src/session/paths';

export type ModeName =
  | 'no-ide'
  | 'attached'
  | 'bp-elsewhere'
  | 'bp-hit'
  | 'condition'
  | 'stepping'
  | 'fn-bp'
  | 'collect';

export const MODES: readonly ModeName[] = [
  'no-ide',
  'attached',
  'bp-elsewhere',
  'bp-hit',
  'condition',
  'stepping',
  'fn-bp',
  'collect',
];

/**
 * One debugged run of a program: a mode, and where the choice is the hook's, the way it watches
 * breakpoints when it is not left to choose (LuaPanda.settings.hookStrategy, lua/luapanda/
 * hookchoice.lua). The pure-Lua hook picks per thread between watching calls and
 * watching lines; a short program stays with lines, so the modes with a breakpoint also run with
 * calls kept.
 */
export interface DebugMode {
  readonly mode: ModeName;
  readonly hookStrategy?: 'calls';
  /**
   * Run as launch mode runs a program: `lua -e <preload>` (src/session/link/debuggee.ts), the
   * program through the runtime's `runFile`, instead of a game that calls `start()`.
   */
  readonly launch?: boolean;
  /** How failures name the run. */
  readonly label: string;
}

/** The modes also run as launch mode runs a program (runFile), when the runner can. */
const LAUNCH_MODES: readonly ModeName[] = ['attached', 'bp-hit'];

/** The debugged runs of a program under `lua`; `launch`: with launch mode's runs too. */
export function debugModesFor(lua: LuaInterpreter, launch = false): DebugMode[] {
  const runs: DebugMode[] = MODES.map((mode) => ({ mode, label: mode }));
  if (launch) {
    for (const mode of LAUNCH_MODES) runs.push({ mode, launch: true, label: `launch ${mode}` });
  }
  if (!lua.native) {
    for (const mode of ['bp-hit', 'condition'] as const) {
      runs.push({ mode, hookStrategy: 'calls', label: `${mode} (calls)` });
    }
  }
  return runs;
}

/** What the IDE saw; checked so that a mode that silently did nothing fails. */
export interface IdeReport {
  connected: boolean;
  breakpointStops: number;
  /** `collectHit`s received (collect mode). */
  collectHits: number;
  stepStops: number;
  exceptionStops: number;
  /** Problems seen on the IDE side (a request without reply, a malformed frame…). */
  problems: string[];
  /** The runtime's last log lines, to tell why a mode saw less than it should have. */
  runtimeLog: string[];
}

/** A never-true condition that still runs code in the program's frame. */
export const NEVER_TRUE = 'rawequal(0, 1)';

/**
 * What `collect` mode collects on the hot line: a global, an expression that fails, a call, under
 * a condition that runs code in the frame, on up to 300 hits (then the collector stays, idle).
 * None reads a global the program lacks: that would run the program's own `_G` metamethods, as
 * any expression of the user's does.
 */
const COLLECTOR = {
  exprs: ['_VERSION', 'error("collected")', 'select("#", 1, 2)'],
  condition: 'not rawequal(0, 1)',
  limit: 300,
};

/** The steps taken from the first hit in `stepping` mode. */
const STEP_SEQUENCE = [
  'stopOnStepIn',
  'stopOnStepIn',
  'stopOnStep',
  'stopOnStepIn',
  'stopOnStepOut',
  'stopOnStep',
  'stopOnStep',
  'stopOnStepIn',
  'stopOnStep',
  'stopOnStepOut',
  'stopOnStep',
  'stopOnStep',
] as const;

const REQUEST_TIMEOUT_MS = 20_000;

export interface DebugRun {
  readonly port: number;
  readonly report: IdeReport;
  /** Resolves when the IDE side is done (the program closed the link, or the run ended). */
  readonly done: Promise<void>;
  close(): Promise<void>;
}

function breakpointsFor(mode: ModeName, bpLine: number): WireBreakpoint[] {
  if (mode === 'bp-hit' || mode === 'stepping') return [{ verified: true, type: 2, line: bpLine }];
  if (mode === 'condition') {
    return [{ verified: true, type: 0, line: bpLine, condition: NEVER_TRUE }];
  }
  return [];
}

/**
 * The names `fn-bp` mode breaks on: the function whose definition (`function A.b(`, `function
 * A:b(`, `function f(`, `local function f(`) is the nearest above the hot line, if any, and a
 * name no program defines. They go with the definition sites the IDE finds in the program (a
 * local function binds by its site); a local function stops on its first three calls only (the
 * hit condition still counts every call), since some are recursions thousands of calls deep.
 */
export function functionBreakpointsFor(
  programPath: string,
  bpLine: number,
): { name: string; hitCondition?: string }[] {
  const lines = fs.readFileSync(programPath, 'utf8').split('\n').slice(0, bpLine);
  const names: { name: string; hitCondition?: string }[] = [
    { name: 'no_such_module.no_such_function' },
  ];
  for (let i = lines.length - 1; i >= 0; i--) {
    const match = /^\s*(local\s+)?function\s+([A-Za-z_][\w.:]*)\s*\(/.exec(lines[i]);
    if (match) {
      names.unshift({ name: match[2], ...(match[1] ? { hitCondition: '<= 3' } : {}) });
      break;
    }
  }
  return names;
}

/** Starts the IDE side of one debugged run (nothing listens in `no-ide` mode). */
export async function startIde(
  mode: ModeName,
  dir: string,
  programName: string,
  bpLine: number,
): Promise<DebugRun> {
  const report: IdeReport = {
    connected: false,
    breakpointStops: 0,
    collectHits: 0,
    stepStops: 0,
    exceptionStops: 0,
    problems: [],
    runtimeLog: [],
  };
  const listener = await LuaListener.listen({
    port: 0,
    host: '127.0.0.1',
    requestTimeoutMs: REQUEST_TIMEOUT_MS,
  });
  const port = listener.port;
  if (mode === 'no-ide') {
    // A port nobody listens on: bound a moment ago, free now.
    await listener.close();
    return { port, report, done: Promise.resolve(), close: async () => undefined };
  }
  let connection: LuaConnection | undefined;
  const done = listener
    .waitForConnection({ timeoutMs: 30_000 })
    .then(async (c) => {
      connection = c;
      report.connected = true;
      await drive(c, mode, path.join(dir, programName), bpLine, report);
    })
    .catch((error: unknown) => {
      report.problems.push(String((error as Error).message ?? error));
    });
  return {
    port,
    report,
    done,
    close: async () => {
      connection?.destroy();
      await listener.close();
    },
  };
}

/** Plays the IDE for one connection until it closes. */
async function drive(
  c: LuaConnection,
  mode: ModeName,
  programPath: string,
  bpLine: number,
  report: IdeReport,
): Promise<void> {
  const closed = new Promise<void>((resolve) => c.once('close', () => resolve()));
  const stops: LuaNotification[] = [];
  let wake: (() => void) | undefined;
  c.on('notification', (n) => {
    if (n.kind === 'log') report.runtimeLog = [...report.runtimeLog.slice(-9), n.text];
    if (n.kind === 'collect' && n.hit.hit !== undefined) report.collectHits++;
    if (n.kind === 'stop') {
      stops.push(n);
      wake?.();
    }
  });
  c.on('protocolError', (e) => report.problems.push(`protocol error: ${e.message}`));
  c.once('close', () => wake?.());
  const nextStop = async (): Promise<LuaNotification | undefined> => {
    while (stops.length === 0 && !c.closed) {
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = undefined;
    }
    return stops.shift();
  };
  const settle = async <T>(p: Promise<T>): Promise<T | undefined> => {
    try {
      return await p;
    } catch (error) {
      if (!c.closed) report.problems.push(String((error as Error).message ?? error));
      return undefined;
    }
  };

  await settle(
    c.request(
      'initSuccess',
      initSuccessInfo({
        cwd: path.dirname(programPath),
        isNeedB64EncodeStr: false,
        waitConfigurationDone: true,
      }),
    ),
  );
  const bks = breakpointsFor(mode, bpLine);
  if (bks.length > 0) await settle(c.request('setBreakPoint', { path: programPath, bks }));
  if (mode === 'bp-elsewhere') {
    const elsewhere = path.join(path.dirname(programPath), 'elsewhere.lua');
    await settle(c.request('setBreakPoint', { path: elsewhere, bks: [{ type: 2, line: 1 }] }));
  }
  if (mode === 'fn-bp') {
    const specs = functionBreakpointsFor(programPath, bpLine);
    const sites = await new FunctionSites().find(
      specs.map((spec) => spec.name),
      [programPath],
      undefined,
    );
    const names = specs.map((spec) => ({
      ...spec,
      sites: (sites.get(spec.name) ?? []).map((site) => ({
        ...site,
        path: normalizePath(site.path),
      })),
    }));
    const reply = await settle(c.request('setFunctionBreakPoint', { names }));
    if (reply && reply.results.length !== names.length) {
      report.problems.push(
        `setFunctionBreakPoint answered ${reply.results.length} of ${names.length}`,
      );
    }
  }
  if (mode === 'collect') {
    const reply = await settle(
      c.request('setCollect', {
        collectors: [{ id: 'c1', path: programPath, line: bpLine, ...COLLECTOR }],
      }),
    );
    if (reply && !reply.results[0]?.verified) {
      report.problems.push(`setCollect refused: ${reply.results[0]?.message}`);
    }
  }
  await settle(c.request('setExceptionBreakpoints', { filters: ['uncaught'] }));
  await settle(c.request('configurationDone', {}));

  let steps = mode === 'stepping' ? [...STEP_SEQUENCE] : [];
  let reads = 3;
  for (;;) {
    const stop = await nextStop();
    if (!stop || stop.kind !== 'stop') break;
    if (stop.cmd === 'stopOnBreakpoint') report.breakpointStops++;
    else if (stop.cmd === 'stopOnException') report.exceptionStops++;
    else report.stepStops++;
    if (reads > 0) {
      reads--;
      // What the IDE reads at a stop must not change the program either.
      await settle(c.request('getVariable', { varRef: '10000', stackId: '2' }));
      await settle(c.request('getVariable', { varRef: '30000', stackId: '2' }));
    }
    if (
      mode === 'stepping' &&
      report.breakpointStops === 1 &&
      steps.length === STEP_SEQUENCE.length
    ) {
      await settle(c.request('setBreakPoint', { path: programPath, bks: [] }));
    }
    const step = steps.shift();
    if (step && stop.cmd !== 'stopOnException') {
      reads = Math.max(reads, 1);
      await settle(c.request(step, {}));
    } else {
      steps = [];
      await settle(c.request('continue', {}));
    }
  }
  await closed;
}
