/**
 * Runs one mocha suite of the extension-host tests (each `run*.ts` entry, loaded by code-server
 * as `extensionTestsPath`, names one: `NAME.e2e.ts` and its parts `NAME.TOPIC.e2e.ts`) inside the real extension host, prints to the console (the
 * workbench forwards it to the runner) and writes a summary to E2E_RESULTS_DIR/<suite>.json.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export function runSuite(suite: string): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 90_000, color: false, reporter: 'spec' });
  // E2E_GREP runs only the tests whose full title matches (a narrower run while working on one).
  if (process.env.E2E_GREP) mocha.grep(process.env.E2E_GREP);
  // The suite's own file first, then its parts by topic (`main.walkthrough.e2e.js`, …).
  mocha.addFile(path.join(__dirname, `${suite}.e2e.js`));
  for (const file of fs.readdirSync(__dirname).sort()) {
    if (file.startsWith(`${suite}.`) && file.endsWith('.e2e.js') && file !== `${suite}.e2e.js`) {
      mocha.addFile(path.join(__dirname, file));
    }
  }
  return new Promise((resolve, reject) => {
    const failures: { title: string; error: string }[] = [];
    let passes = 0;
    const runner = mocha.run((failed) => {
      const summary = { suite, passes, failures };
      const dir = process.env.E2E_RESULTS_DIR;
      if (dir) fs.writeFileSync(path.join(dir, `${suite}.json`), JSON.stringify(summary));
      if (failed > 0) reject(new Error(`${failed} extension-host test(s) failed`));
      else resolve();
    });
    runner.on('pass', () => passes++);
    runner.on('fail', (test, error: Error) =>
      failures.push({ title: test.fullTitle(), error: String(error?.stack ?? error) }),
    );
  });
}
