import { once } from 'node:events';
import type { Response } from 'express';

/**
 * CSV exports (RFC 4180) for spreadsheets: every cell a spreadsheet could read as a formula is
 * made text, and rows are streamed as they are read, at the pace the client takes them.
 */

export type CsvValue = string | number | boolean | null;

/**
 * Characters that make a spreadsheet read a cell as a formula (or, tab and carriage return,
 * hide one): OWASP's "CSV injection". Such a cell gets a leading `'`, which shows it as text.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/** One cell: a guarded text, quoted when it holds a comma, a quote or a line break. */
export function csvCell(value: CsvValue): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line, CRLF-terminated as RFC 4180 has it. */
export function csvLine(cells: readonly CsvValue[]): string {
  return `${cells.map(csvCell).join(',')}\r\n`;
}

/**
 * Answers with a CSV file of `header` and `rows`, as an attachment named `filename`. The first
 * row is read before anything is sent, so a failing read is still an error envelope; a failure
 * later cuts the answer short (the client sees an incomplete transfer). Stops reading when the
 * client goes away.
 */
export async function sendCsv(
  res: Response,
  filename: string,
  header: readonly string[],
  rows: AsyncIterable<readonly CsvValue[]>,
): Promise<void> {
  const iterator = rows[Symbol.asyncIterator]();
  try {
    let next = await iterator.next();
    res.status(200);
    res.set('Content-Type', 'text/csv; charset=utf-8');
    res.set('Content-Disposition', `attachment; filename="${filename}"`);
    res.write(csvLine(header));
    while (!next.done) {
      if (res.destroyed) return;
      if (!res.write(csvLine(next.value))) {
        await Promise.race([once(res, 'drain'), once(res, 'close')]);
      }
      next = await iterator.next();
    }
    res.end();
  } finally {
    // The reader's own clean-up (a database cursor) runs when the rows were not all read.
    await iterator.return?.();
  }
}
