/**
 * One differential case: a corpus program run plain (twice, so a nondeterministic program is
 * caught as such) and under the runtime in each mode, with the outputs compared byte for byte.
 * Returns what differs in words a reader can act on, or nothing.
 */
import type { LuaInterpreter } from '../harness/interpreters';
import { CorpusProgram, withRuntime } from './corpus';
import { knownFor } from './knownDifferences';
import { DebugMode, IdeReport, ModeName, debugModesFor, startIde } from './modes';
import { RunResult, prepareFolder, removeFolder, runLua, writeProgram } from './runProgram';
import { preloadCode } from '../../src/session/link/debuggee';
import { CONSOLE_MARKER } from '../../src/session/link/stdoutConsole';

export const RUN_TIMEOUT_MS = 90_000;
/** How long the IDE side may take to see the link close once the program has ended. */
export const IDE_DONE_MS = 5_000;

export interface ModeOutcome {
  readonly mode: ModeName;
  /** The run's name in failures (the mode, and the hook's way when it is kept). */
  readonly label: string;
  readonly result: RunResult;
  readonly report: IdeReport;
}

export interface CaseOutcome {
  readonly plain: RunResult;
  readonly modes: ModeOutcome[];
  /** One line per difference or failed expectation; empty when the program could not tell. */
  readonly failures: string[];
  /** Documented differences seen (knownDifferences.ts), as "mode: why". */
  readonly known: string[];
  /**
   * The failures (also in `failures`) that say a breakpoint mode never stopped, apart from those
   * about what the program printed: a test can hold a known gap in stopping (issue 30: a
   * coroutine resumed from C) apart from transparency.
   */
  readonly missedStops: string[];
}

const plainCache = new Map<string, Promise<{ plain: RunResult; again: RunResult }>>();

function plainRuns(lua: LuaInterpreter, program: CorpusProgram) {
  const key = `${lua.command}\0${program.name}`;
  let cached = plainCache.get(key);
  if (!cached) {
    cached = (async () => {
      const dir = prepareFolder(lua);
      writeProgram(dir, program.name, program.source);
      try {
        const plain = await runLua(lua, dir, program.name, RUN_TIMEOUT_MS);
        const again = await runLua(lua, dir, program.name, RUN_TIMEOUT_MS);
        return { plain, again };
      } finally {
        removeFolder(dir);
      }
    })();
    plainCache.set(key, cached);
  }
  return cached;
}

/** Launch mode's console lines in stdout (the session takes them out before the user sees it). */
const CONSOLE_LINES = new RegExp(`${CONSOLE_MARKER}[^\u0000]*\u0000`, 'g');

async function debuggedRun(
  lua: LuaInterpreter,
  program: CorpusProgram,
  run: DebugMode,
): Promise<ModeOutcome> {
  const { mode, label } = run;
  const dir = prepareFolder(lua);
  const ide = await startIde(mode, dir, program.name, program.bpLine);
  try {
    let result: RunResult;
    if (run.launch) {
      // The program unchanged, run the way a launch configuration runs it (the runtime beside it).
      writeProgram(dir, program.name, program.source);
      const preload = preloadCode({
        program: program.name,
        args: [],
        cwd: dir,
        env: {},
        interpreters: [lua.command],
        runtimeDir: dir,
        port: ide.port,
      });
      const launched = await runLua(lua, dir, program.name, RUN_TIMEOUT_MS, ['-e', preload]);
      result = { ...launched, stdout: launched.stdout.replace(CONSOLE_LINES, '') };
    } else {
      writeProgram(dir, program.name, withRuntime(program, ide.port, run.hookStrategy));
      result = await runLua(lua, dir, program.name, RUN_TIMEOUT_MS);
    }
    await Promise.race([ide.done, new Promise((resolve) => setTimeout(resolve, IDE_DONE_MS))]);
    return { mode, label, result, report: ide.report };
  } finally {
    await ide.close();
    removeFolder(dir);
  }
}

/**
 * How one case's program is run: plain (twice) and under the runtime in one mode. The corpus
 * programs run as `lua prog.lua` (interpreterRunner); test/transparency/engineRuns.ts runs
 * programs through an engine host.
 */
export interface CaseRunner {
  plain(): Promise<{ plain: RunResult; again: RunResult }>;
  debugged(run: DebugMode): Promise<ModeOutcome>;
  /**
   * Errors no Lua code handles (an IDE asking for uncaught errors may stop once at each). When
   * absent: none when the plain run ends well, one when it fails.
   */
  readonly uncaughtErrors?: number;
  /** What the runner puts in front of each line `print` writes (an engine's log tag), if any. */
  readonly printTag?: string;
  /** Whether it also runs the program as launch mode does (`lua -e <preload>`, runFile). */
  readonly launches?: boolean;
}

export function interpreterRunner(lua: LuaInterpreter, program: CorpusProgram): CaseRunner {
  return {
    plain: () => plainRuns(lua, program),
    debugged: (run) => debuggedRun(lua, program, run),
    launches: true,
  };
}

/** Runs jobs at most `width` at a time; the results in the jobs' order. */
export async function inPool<T>(jobs: (() => Promise<T>)[], width: number): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      results[index] = await jobs[index]();
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, worker));
  return results;
}

/** The first differing line of two texts, with a little context, for a failure message. */
export function firstDifference(label: string, expected: string, actual: string): string {
  const a = expected.split('\n');
  const b = actual.split('\n');
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const show = (lines: string[]) =>
    lines
      .slice(Math.max(0, i - 1), i + 3)
      .map((l) => `      | ${l}`)
      .join('\n');
  return `${label} differs at line ${i + 1}:\n    plain:\n${show(a)}\n    debugged:\n${show(b)}`;
}

/** LuaJIT names the C frame at the bottom of a traceback by its address, which ASLR moves. */
function normalized(text: string): string {
  return text.replace(/\[C\]: at 0x[0-9a-f]+/g, '[C]: at 0x?');
}

function compare(mode: string, plainRun: RunResult, gotRun: RunResult): string[] {
  const out: string[] = [];
  const plain = { ...plainRun, stderr: normalized(plainRun.stderr) };
  const got = { ...gotRun, stderr: normalized(gotRun.stderr) };
  if (got.timedOut) out.push(`${mode}: did not finish within ${RUN_TIMEOUT_MS} ms`);
  if (plain.stdout !== got.stdout)
    out.push(`${mode}: ${firstDifference('stdout', plain.stdout, got.stdout)}`);
  if (plain.stderr !== got.stderr)
    out.push(`${mode}: ${firstDifference('stderr', plain.stderr, got.stderr)}`);
  if (plain.code !== got.code || plain.signal !== got.signal) {
    out.push(`${mode}: exit ${got.code ?? got.signal} instead of ${plain.code ?? plain.signal}`);
  }
  return out;
}

const NEVER_STOPPED = 'the breakpoint never stopped';

/** What each mode must have seen happen, so that a mode that did nothing cannot pass. */
function expectations(outcome: ModeOutcome, plain: RunResult, uncaughtErrors?: number): string[] {
  const { mode, label, report } = outcome;
  const out = report.problems.map((p) => `${label}: IDE side: ${p}`);
  if (mode === 'no-ide') return out;
  // The IDE asks for uncaught errors only: a program that ends well caught all of its own.
  const uncaught = uncaughtErrors ?? (plain.code === 0 ? 0 : 1);
  if (uncaught === 0 && report.exceptionStops > 0) {
    out.push(`${label}: stopped ${report.exceptionStops} time(s) on an error the program catches`);
  } else if (report.exceptionStops > uncaught) {
    out.push(`${label}: stopped ${report.exceptionStops} times on ${uncaught} uncaught error(s)`);
  }
  if (!report.connected) out.push(`${label}: the program never connected`);
  const said =
    report.runtimeLog.length > 0 ? ` (the runtime said: ${report.runtimeLog.join(' | ')})` : '';
  if (mode === 'bp-hit' && report.breakpointStops < 1)
    out.push(`${label}: ${NEVER_STOPPED}${said}`);
  if (
    (mode === 'condition' || mode === 'bp-elsewhere' || mode === 'attached') &&
    report.breakpointStops > 0
  ) {
    out.push(`${label}: stopped at a breakpoint that must not fire`);
  }
  if (mode === 'stepping' && report.breakpointStops < 1)
    out.push(`${label}: ${NEVER_STOPPED}${said}`);
  if (mode === 'collect' && report.collectHits < 1)
    out.push(`${label}: the collector on the hot line sent no hit${said}`);
  if (mode === 'collect' && report.breakpointStops > 0)
    out.push(`${label}: a collecting breakpoint stopped the program`);
  return out;
}

/**
 * Stdout without the lines a documented difference allows to differ (all of them: ''); the lines
 * are matched without the runner's print tag.
 */
function withoutLines(text: string, lines: RegExp | undefined, tag = ''): string {
  if (!lines) return '';
  const untagged = (l: string) => (tag && l.startsWith(tag) ? l.slice(tag.length) : l);
  return text
    .split('\n')
    .filter((l) => !lines.test(untagged(l)))
    .join('\n');
}

export function runCase(lua: LuaInterpreter, program: CorpusProgram): Promise<CaseOutcome> {
  return runCaseWith(lua, program.name, interpreterRunner(lua, program));
}

/** One case run by `runner`; `name` is the program's name in knownDifferences.ts. */
export async function runCaseWith(
  lua: LuaInterpreter,
  name: string,
  runner: CaseRunner,
): Promise<CaseOutcome> {
  const { plain, again } = await runner.plain();
  const failures: string[] = [];
  const known: string[] = [];
  if (plain.timedOut) failures.push('plain run did not finish');
  const unstable = compare('plain (second run)', plain, again);
  if (unstable.length > 0) {
    failures.push('the program is not deterministic when run plain:', ...unstable);
    return { plain, modes: [], failures, known, missedStops: [] };
  }
  const modes: ModeOutcome[] = [];
  for (const run of debugModesFor(lua, runner.launches)) {
    const outcome = await runner.debugged(run);
    modes.push(outcome);
    const mode = run.label;
    let expected = plain;
    let got = outcome.result;
    for (const difference of knownFor(name, lua, run.mode, run.launch === true)) {
      const differs = plain.stdout !== outcome.result.stdout;
      if (differs) known.push(`${mode}: ${difference.why}`);
      else if (difference.always) {
        failures.push(
          `${mode}: the documented difference no longer happens (update test/transparency/knownDifferences.ts): ${difference.why}`,
        );
      }
      const tag = runner.printTag;
      expected = { ...expected, stdout: withoutLines(expected.stdout, difference.lines, tag) };
      got = { ...got, stdout: withoutLines(got.stdout, difference.lines, tag) };
    }
    failures.push(
      ...compare(mode, expected, got),
      ...expectations(outcome, plain, runner.uncaughtErrors),
    );
  }
  const missedStops = failures.filter((f) => f.includes(NEVER_STOPPED));
  return { plain, modes, failures, known, missedStops };
}
