/**
 * The differential suite through the engine hosts: the engine game (test/scenarios/engine, with
 * the breakpoint in a module's method and in the job coroutine the host resumes from C) and a few
 * corpus programs as boot scripts must print byte-identical stdout and stderr, and end alike, run
 * by a host plain and with the runtime started from boot.lua, in every mode the IDE side drives
 * (test/transparency/modes.ts), pure and native, on every host built. A host that could not be
 * built is skipped with the reason (in CI it fails: engineHostVariants).
 */
import { strict as assert } from 'node:assert';
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
  'xpcall_traceback.lua',
];
const CONCURRENCY = 2;

function programsFor(host: EngineHost): EngineProgram[] {
  const corpus = loadCorpus().filter((p) => CORPUS_AS_BOOT.includes(p.name) && runsOn(p, host));
  return [
    engineGame('game/player.lua', 'move', 'breakpoint in a module method called from Update'),
    engineGame('boot.lua', 'jobTick', 'breakpoint in the job coroutine resumed from C'),
    ...corpus.map(corpusAsBoot),
  ];
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
      it.skip(hostMissing(name) ?? 'not built');
    });
  }
}

for (const host of hosts) {
  const programs = programsFor(host);
  describe(`transparency through ${host.label}`, function () {
    this.timeout(600_000);
    const outcomes = new Map<string, CaseOutcome | Error>();

    before(async function () {
      this.timeout(1_800_000);
      const jobs = programs.map((program) => async () => {
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
      it(`${program.name}: ${program.title}`, () => {
        const outcome = outcomes.get(program.name);
        if (outcome instanceof Error) throw outcome;
        assert.ok(outcome, 'not run');
        if (outcome.failures.length > 0) assert.fail(outcome.failures.join('\n'));
      });
    }
  });
}
