/**
 * The differential suite through the engine hosts: the engine game (test/scenarios/engine, with
 * the breakpoint in a module's method and in the job coroutine the host resumes from C) and a few
 * corpus programs as boot scripts must print byte-identical stdout and stderr, and end alike, run
 * by a host plain and with the runtime started from boot.lua, in every mode the IDE side drives
 * (test/transparency/modes.ts), pure and native, on every host built. A host that could not be
 * built is skipped with the reason (in CI it fails: engineHostVariants).
 */
import { strict as assert } from 'node:assert';
import * as os from 'node:os';
import { EngineHost, HOST_NAMES, engineHostVariants, hostMissing } from '../harness/engineHost';
import { loadCorpus, runsOn } from './corpus';
import { CaseOutcome, inPool, runCaseWith } from './differential';
import { EngineProgram, corpusAsBoot, engineGame, engineRunner } from './engineRuns';

/** Corpus programs whose shape an engine's boot script has (coroutines, errors, a game loop). */
const CORPUS_AS_BOOT = [
  'coroutine_basics.lua',
  'coroutine_errors.lua',
  'coroutine_traceback.lua',
  'error_levels.lua',
  'game_loop_tasks.lua',
  'scheduler.lua',
  'uncaught_runtime_error.lua',
  'uncaught_wrap_error.lua',
  'xpcall_traceback.lua',
];

/** Corpus programs that only work as `lua <file>`: left out of LUAPANDA_ENGINE_CORPUS runs. */
const NOT_AS_BOOT: Record<string, string> = {
  'reload_self.lua': 'reads and reloads its own file by its name (arg[0], or reload_self.lua)',
};

/**
 * Differences found through the engine hosts and not fixed yet: kept as tests, skipped (and not
 * run) on the hosts named, each with what differs. Remove an entry once the runtime fixes it.
 */
const KNOWN_ENGINE_DIFFERENCES: {
  program: string;
  applies: (host: EngineHost) => boolean;
  why: string;
}[] = [
  {
    // In every attached mode, on every host, pure and native (not with no IDE): the host's
    // message handler gets the error of a coroutine.wrap body raised by the runtime's replacement
    // of coroutine.wrap, so its traceback starts "[C]: in function 'error'" then a
    // "LuaPanda.lua:<line>: in function …" frame, where plain it starts "[C]: in function
    // 'worker'" (5.3/5.4: "in local 'worker'"). Run as `lua <file>` the tracebacks are identical.
    program: 'uncaught_wrap_error.lua',
    applies: () => true,
    why: "an uncaught error through coroutine.wrap: the engine's traceback shows the runtime's wrap",
  },
];

function knownEngineDifference(host: EngineHost, program: EngineProgram) {
  return KNOWN_ENGINE_DIFFERENCES.find((d) => d.program === program.name && d.applies(host));
}
// The hosts sleep between frames: a few runs at a time, as many as there are cores (2 to 4).
const CONCURRENCY = Math.max(2, Math.min(4, os.cpus().length));

// For a wider look: LUAPANDA_ENGINE_CORPUS=<regex> runs the matching corpus programs instead
// ('.' runs them all; the documented differences of knownDifferences.ts apply as for `lua`).
const CORPUS_CHOICE = process.env.LUAPANDA_ENGINE_CORPUS
  ? new RegExp(process.env.LUAPANDA_ENGINE_CORPUS)
  : undefined;

function programsFor(host: EngineHost): EngineProgram[] {
  const chosen = (name: string) =>
    CORPUS_CHOICE ? CORPUS_CHOICE.test(name) && !NOT_AS_BOOT[name] : CORPUS_AS_BOOT.includes(name);
  const corpus = loadCorpus().filter((p) => chosen(p.name) && runsOn(p, host));
  return [
    engineGame('game/player.lua', 'move', 'breakpoint in a module method called from Update'),
    engineGame('boot.lua', 'jobTick', 'breakpoint in the job coroutine resumed from C'),
    engineGame('game/player.lua', 'move', 'a game-sized heap (32 MB of tables at boot)', {
      ballastMb: 32,
    }),
    engineGame('boot.lua', 'jobTick', 'start() after the job coroutine exists (attach later)', {
      startAt: 'end',
    }),
    ...corpus.map(corpusAsBoot),
  ];
}

function outcomeOf(
  outcomes: Map<string, CaseOutcome | Error>,
  program: EngineProgram,
): CaseOutcome {
  const outcome = outcomes.get(program.name);
  if (outcome instanceof Error) throw outcome;
  assert.ok(outcome, 'not run');
  return outcome;
}

describe('transparency through engine hosts', () => {
  it('runs the chosen corpus programs', () => {
    const names = loadCorpus().map((p) => p.name);
    for (const name of CORPUS_AS_BOOT) assert.ok(names.includes(name), `${name} left the corpus`);
  });
});

const { hosts } = engineHostVariants();
for (const name of HOST_NAMES) {
  if (!hosts.some((h) => h.host === name)) {
    describe(`transparency through engine-${name}`, () => {
      it.skip(`engine-${name}: ${hostMissing(name) ?? 'not built'}`);
    });
  }
}

for (const host of hosts) {
  const programs = programsFor(host);
  const run = (program: EngineProgram) => !knownEngineDifference(host, program);
  describe(`transparency through ${host.label}`, function () {
    this.timeout(600_000);
    const outcomes = new Map<string, CaseOutcome | Error>();

    before(async function () {
      this.timeout(1_800_000);
      const jobs = programs.filter(run).map((program) => async () => {
        try {
          outcomes.set(
            program.name,
            await runCaseWith(host, program.name, engineRunner(host, program)),
          );
        } catch (error) {
          outcomes.set(program.name, error as Error);
        }
      });
      await inPool(jobs, CONCURRENCY);
    });

    for (const program of programs) {
      const known = knownEngineDifference(host, program);
      if (known) {
        it.skip(`${program.name}: ${program.title} (known difference: ${known.why})`);
        continue;
      }
      // (A breakpoint in a coroutine made before start() and resumed from C by lua_resume stops
      // too: the runtime finds such coroutines when it attaches, lua/luapanda/threadscan.lua.)
      it(`${program.name}: ${program.title}`, () => {
        const { failures } = outcomeOf(outcomes, program);
        if (failures.length > 0) assert.fail(failures.join('\n'));
      });
    }
  });
}
