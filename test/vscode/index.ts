// The test runner VS Code loads inside its extension host (the `extensionTestsPath` of the
// e2e driver): runs every bundled suite with mocha and writes the tallies where the driver
// reads them. Mocha itself stays external and is loaded from the repository's node_modules.
import * as fs from 'fs';
import * as path from 'path';
import Mocha from 'mocha';
import { readInfo, type HostResults } from './support';

export async function run(): Promise<void> {
  const info = readInfo();
  const suiteDir = path.join(__dirname, 'suite');
  const grep = info.grep ? new RegExp(info.grep) : undefined;
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: false, reporter: FileReporter, ...(grep ? { grep } : {}) });
  for (const f of fs.readdirSync(suiteDir).filter((f) => f.endsWith('.test.js')).sort()) mocha.addFile(path.join(suiteDir, f));
  const results = await new Promise<HostResults>((resolve) => {
    const runner = mocha.run(() => resolve(collected(runner)));
  });
  fs.writeFileSync(info.resultsPath, JSON.stringify(results, null, 2));
  if (results.failed > 0) throw new Error(`${results.failed} in-host test(s) failed`);
}

const tallies = new WeakMap<Mocha.Runner, HostResults>();
function collected(runner: Mocha.Runner): HostResults {
  return tallies.get(runner) ?? { passed: 0, failed: 1, skipped: 0, failures: [{ title: 'runner', error: 'no results collected' }] };
}

// Writes spec-like lines to the driver's log file as they happen (the extension host's
// stdout is not ours to read), and keeps the tallies.
class FileReporter extends Mocha.reporters.Base {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const info = readInfo();
    const t: HostResults = { passed: 0, failed: 0, skipped: 0, failures: [] };
    tallies.set(runner, t);
    const line = (s: string) => fs.appendFileSync(info.logPath, s + '\n');
    const C = Mocha.Runner.constants;
    runner.on(C.EVENT_SUITE_BEGIN, (s: Mocha.Suite) => { if (s.title) line(`  ${s.title}`); });
    runner.on(C.EVENT_TEST_PASS, (test: Mocha.Test) => { t.passed++; line(`    ok   ${test.title} (${test.duration ?? 0} ms)`); });
    runner.on(C.EVENT_TEST_PENDING, (test: Mocha.Test) => { t.skipped++; line(`    skip ${test.title}`); });
    runner.on(C.EVENT_TEST_FAIL, (test: Mocha.Test, err: Error) => {
      t.failed++;
      const error = err?.stack ?? String(err);
      t.failures.push({ title: test.fullTitle(), error });
      line(`    FAIL ${test.title}\n${error.split('\n').slice(0, 8).map((l) => '         ' + l).join('\n')}`);
    });
  }
}
