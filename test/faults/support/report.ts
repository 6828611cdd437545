import { markdownTable } from '../../../bench/markdown-figures.js';
import type { Tally } from './load.js';

export interface FaultRow extends Tally {
  fault: string;
  /** What else was measured (recovery time, requests in flight, activations...). */
  notes: string[];
  /** Set once every assertion of the scenario has passed. */
  passed: boolean;
}

const COLUMNS: Array<[string, (row: FaultRow) => string]> = [
  ['fault', (row) => row.fault],
  ['sent', (row) => String(row.sent)],
  ['answered', (row) => String(row.answered)],
  ['correct', (row) => String(row.ok)],
  ['failed', (row) => String(row.internal + row.wrong)],
  ['of them INTERNAL_ERROR', (row) => String(row.internal)],
  ['hung', (row) => String(row.hung)],
  ['slowest ms', (row) => String(row.worstMs)],
  ['result', (row) => (row.passed ? 'pass' : 'FAIL')],
];

/** The table of faults the suite prints at its end. */
export class FaultReport {
  private readonly rows: FaultRow[] = [];
  private readonly started = Date.now();

  constructor(
    private readonly title: string,
    private readonly legend: string[] = [],
  ) {}

  add(fault: string, tally: Tally): FaultRow {
    const row: FaultRow = { fault, ...tally, notes: [], passed: false };
    this.rows.push(row);
    return row;
  }

  render(): string {
    const out = [
      '',
      this.title,
      markdownTable(
        COLUMNS.map(([name]) => name),
        this.rows.map((row) => COLUMNS.map(([, cell]) => cell(row))),
      ),
      ...this.legend.map((text) => `  ${text}`),
      '',
      ...this.rows.flatMap((row) => row.notes.map((note) => `  ${row.fault}: ${note}`)),
      `  total time ${((Date.now() - this.started) / 1000).toFixed(1)} s`,
      '',
    ];
    return out.join('\n');
  }

  /** On standard error, which jest does not hold back: it shows in `npm run test:faults`. */
  print(): void {
    process.stderr.write(`${this.render()}\n`);
  }
}
