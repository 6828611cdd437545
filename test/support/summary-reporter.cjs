// Prints the slowest test files, then one plain closing line, `tests: N passed, N failed, N
// skipped`, as the very last line of `npm test` (after jest's own summary), so any CI can read the
// result without knowing jest and a run's log shows where its time went.
const SLOWEST = 12;

class SummaryReporter {
  constructor() {
    this.files = [];
  }

  onTestResult(_test, result) {
    const { start, end } = result.perfStats;
    this.files.push({ path: result.testFilePath, seconds: (end - start) / 1000 });
  }

  onRunComplete(contexts, results) {
    const root = [...contexts][0]?.config.rootDir ?? process.cwd();
    const slowest = [...this.files].sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST);
    const rows = slowest.map(
      (f) => `  ${f.seconds.toFixed(1).padStart(6)} s  ${f.path.replace(`${root}/`, '')}`,
    );
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`;
    const table = rows.length === 0 ? '' : `The slowest test files:\n${rows.join('\n')}\n`;
    process.once('exit', () => process.stderr.write(table + line));
  }
}
module.exports = SummaryReporter;
