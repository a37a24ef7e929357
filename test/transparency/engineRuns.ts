/**
 * The differential suite through an engine host (test/hosts/engine.c): a program is a script root
 * (boot.lua and its modules) run by the host, plain and with `require("LuaPanda").start(…)` put in
 * front of line 1 of boot.lua, the runtime copied into the script root as a game ships it (so the
 * host's searcher loads it too). Plain and debugged runs get identical fresh roots; the native
 * variant finds the accelerator on LUA_CPATH (LuaProcess), in both runs alike.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EngineHost, startEngine } from '../harness/engineHost';
import { scenario } from '../harness/scenario';
import { BUNDLE_DIR } from '../runtime/helpers';
import { CorpusProgram, withRuntime } from './corpus';
import { CaseRunner, IDE_DONE_MS, ModeOutcome, RUN_TIMEOUT_MS } from './differential';
import { DebugMode, startIde } from './modes';
import { RunResult } from './runProgram';

export interface EngineProgram {
  /** How the case is named (and looked up in knownDifferences.ts). */
  readonly name: string;
  readonly title: string;
  /** The script root's files by root-relative path; `boot.lua` among them. */
  readonly files: ReadonlyMap<string, string>;
  /** The file (root-relative) and 1-based line where the breakpoint modes act. */
  readonly bpFile: string;
  readonly bpLine: number;
  readonly frames: number;
  /** Megabytes of heap ballast the host allocates at boot (a game-sized heap). */
  readonly ballastMb?: number;
  /**
   * Where boot.lua starts the runtime: in front of line 1 (default), or after its last line, when
   * the game's modules, functions and job coroutine exist already (the attach-later shape).
   */
  readonly startAt?: 'top' | 'end';
  /** Errors no Lua code handles (caught by the host's lua_pcall only). */
  readonly uncaughtErrors?: number;
}

/** The engine game's frames in a differential run, and the errors it raises that only C catches. */
const GAME_FRAMES = 8;

/** The engine game of test/scenarios/engine, with the breakpoint at `marker` of `bpFile`. */
export function engineGame(
  bpFile: string,
  marker: string,
  title: string,
  options: { ballastMb?: number; startAt?: 'top' | 'end' } = {},
): EngineProgram {
  const game = scenario('engine');
  const files = new Map<string, string>();
  for (const file of game.files().filter((f) => f.endsWith('.lua'))) {
    files.set(file, fs.readFileSync(game.file(file), 'utf8'));
  }
  return {
    name: `engine game [${bpFile} ${marker}${options.ballastMb ? `, ${options.ballastMb} MB` : ''}${options.startAt === 'end' ? ', started last' : ''}]`,
    title,
    files,
    bpFile,
    bpLine: game.line(bpFile, marker),
    frames: GAME_FRAMES,
    ...options,
    uncaughtErrors: 1,
  };
}

/** A corpus program as the boot script of an engine (one frame, no Update: it runs at boot). */
export function corpusAsBoot(program: CorpusProgram): EngineProgram {
  return {
    name: program.name,
    title: program.title,
    files: new Map([['boot.lua', program.source]]),
    bpFile: 'boot.lua',
    bpLine: program.bpLine,
    frames: 1,
  };
}

function prepareRoot(program: EngineProgram, boot?: string): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lp-engine-transparency-'));
  for (const [file, source] of program.files) {
    const target = path.join(root, ...file.split('/'));
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, file === 'boot.lua' && boot !== undefined ? boot : source);
  }
  fs.copyFileSync(path.join(BUNDLE_DIR, 'LuaPanda.lua'), path.join(root, 'LuaPanda.lua'));
  return root;
}

/** Runs the host on `root` to its end, bounded like the suite's interpreter runs. */
async function runHost(host: EngineHost, root: string, program: EngineProgram): Promise<RunResult> {
  const { frames, ballastMb } = program;
  const engine = startEngine(host, { root, frames, ballastMb, runtime: false, cwd: root });
  let timedOut = false;
  try {
    await engine.waitForExit(RUN_TIMEOUT_MS);
  } catch {
    timedOut = true; // waitForExit killed it
  }
  const exit = await engine.exited;
  return { stdout: engine.stdout, stderr: engine.stderr, ...exit, timedOut };
}

/** boot.lua with the runtime started after its last line (lines unmoved). */
function startedLast(source: string, port: number, hookStrategy?: string): string {
  const setting = hookStrategy
    ? `require("LuaPanda").settings.hookStrategy = ${JSON.stringify(hookStrategy)} `
    : '';
  const end = source.endsWith('\n') ? '' : '\n';
  return `${source}${end}${setting}require("LuaPanda").start("127.0.0.1", ${port})\n`;
}

export function engineRunner(host: EngineHost, program: EngineProgram): CaseRunner {
  const bootSource = program.files.get('boot.lua');
  if (bootSource === undefined) throw new Error(`${program.name}: no boot.lua`);
  const asProgram: CorpusProgram = {
    name: 'boot.lua',
    title: program.title,
    source: bootSource,
    bpLine: program.bpLine,
    versions: 'all',
  };
  return {
    uncaughtErrors: program.uncaughtErrors,
    // The host's log writer (enginePrint in test/hosts/engine.c).
    printTag: '[lua] ',
    async plain() {
      const root = prepareRoot(program);
      try {
        const plain = await runHost(host, root, program);
        const again = await runHost(host, root, program);
        return { plain, again };
      } finally {
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
    async debugged(run: DebugMode): Promise<ModeOutcome> {
      const root = prepareRoot(program);
      const ide = await startIde(run.mode, root, program.bpFile, program.bpLine);
      try {
        const boot =
          program.startAt === 'end'
            ? startedLast(bootSource, ide.port, run.hookStrategy)
            : withRuntime(asProgram, ide.port, run.hookStrategy);
        fs.writeFileSync(path.join(root, 'boot.lua'), boot);
        const result = await runHost(host, root, program);
        await Promise.race([ide.done, new Promise((resolve) => setTimeout(resolve, IDE_DONE_MS))]);
        return { mode: run.mode, label: run.label, result, report: ide.report };
      } finally {
        await ide.close();
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
  };
}
