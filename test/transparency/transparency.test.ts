/**
 * The differential transparency suite: every corpus program (test/fixtures/transparency) must
 * print byte-identical stdout and stderr and end with the same status plain and under the
 * runtime, in every mode (test/transparency/modes.ts), with the pure-Lua hook and with the native
 * accelerator, under every installed interpreter. The cases of one runtime variant run a few at
 * a time in `before`; each program then reports as a test of its own.
 */
import { strict as assert } from 'node:assert';
import * as os from 'node:os';
import { runtimeVariants } from '../harness/interpreters';
import { loadCorpus, runsOn } from './corpus';
import { CaseOutcome, inPool, runCase } from './differential';

const CORPUS = loadCorpus();
// For a developer loop: LUAPANDA_TRANSPARENCY_ONLY=<regex> runs the matching programs only.
const ONLY = process.env.LUAPANDA_TRANSPARENCY_ONLY
  ? new RegExp(process.env.LUAPANDA_TRANSPARENCY_ONLY)
  : undefined;
const CONCURRENCY = Math.max(2, Math.min(4, os.cpus().length * 2));

describe('transparency corpus', () => {
  it('has at least 40 programs, each with a header and one @bp line', () => {
    assert.ok(CORPUS.length >= 40, `only ${CORPUS.length} programs in the corpus`);
  });
});

for (const lua of runtimeVariants()) {
  const programs = CORPUS.filter((p) => runsOn(p, lua) && (!ONLY || ONLY.test(p.name)));
  describe(`transparency (${lua.label})`, function () {
    this.timeout(600_000);
    const outcomes = new Map<string, CaseOutcome | Error>();

    before(async function () {
      this.timeout(1_800_000);
      const jobs = programs.map((program) => async () => {
        try {
          outcomes.set(program.name, await runCase(lua, program));
        } catch (error) {
          outcomes.set(program.name, error as Error);
        }
      });
      await inPool(jobs, CONCURRENCY);
    });

    after(() => {
      // What remained different on purpose, once per reason, so that it is seen in the output.
      const reasons = new Map<string, string[]>();
      for (const [name, outcome] of outcomes) {
        if (outcome instanceof Error) continue;
        for (const line of new Set(outcome.known.map((k) => k.replace(/^[^:]+: /, '')))) {
          reasons.set(line, [...(reasons.get(line) ?? []), name]);
        }
      }
      for (const [why, names] of reasons) {
        console.log(`      documented difference (${names.join(', ')}): ${why}`);
      }
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
