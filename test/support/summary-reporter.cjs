// Prints one plain closing line, `tests: N passed, N failed, N skipped`, as the very last line
// of `npm test` (after jest's own summary), so any CI can read the result without knowing jest.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `tests: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`;
    process.once('exit', () => process.stderr.write(line));
  }
}
module.exports = SummaryReporter;
