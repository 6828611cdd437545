import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { documents } from '../support/openapi-documents.js';

/**
 * Both OpenAPI documents pass Redocly's recommended rules with no error: among them, every
 * operation says who may call it (security) and the document says where it is served (servers).
 */

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location?: Array<{ pointer?: string }>;
}

let directory: string;
beforeAll(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'openapi-lint-'));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

describe.each(documents)('the $name document', ({ name, doc }) => {
  test('redocly lint --extends=recommended finds no error', () => {
    const file = path.join(directory, `${name}.json`);
    writeFileSync(file, JSON.stringify(doc));
    const lint = spawnSync(
      'npx',
      ['--no', 'redocly', 'lint', '--extends=recommended', file, '--format=json'],
      {
        encoding: 'utf8',
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
      },
    );
    const report = JSON.parse(lint.stdout) as { problems: LintProblem[] };
    const errors = report.problems
      .filter((problem) => problem.severity === 'error')
      .map(
        (problem) => `${problem.ruleId} at ${problem.location?.[0]?.pointer}: ${problem.message}`,
      );
    expect(errors).toEqual([]);
    expect(lint.status).toBe(0);
  });
});
