/**
 * Runs one mocha suite of the extension-host tests (each `run*.ts` entry, loaded by code-server
 * as `extensionTestsPath`, names one) inside the real extension host, prints to the console (the
 * workbench forwards it to the runner) and writes a summary to E2E_RESULTS_DIR/<suite>.json.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

export function runSuite(suite: string): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', timeout: 90_000, color: false, reporter: 'spec' });
  mocha.addFile(path.join(__dirname, `${suite}.e2e.js`));
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
