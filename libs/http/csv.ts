import type { Response } from 'express';
import type { Logger } from '../logging/index.js';

/**
 * CSV exports of the admin lists (docs/api-decisions.md, "Lists: order, pages, exports"): RFC
 * 4180 text in UTF-8 with a header row, lines ending in CRLF, a field quoted when it holds a
 * comma, a double quote (doubled inside) or a line break. A text field that a spreadsheet would
 * read as a formula (starting with `=`, `+`, `-`, `@`, a tab or a carriage return) is written
 * with a `'` before it, so opening an export runs nothing a customer typed. Nothing here reads
 * Node or Express at run time: the console builds its CSV of a selection with it too.
 */

export type CsvValue = string | number | boolean | null;

/** One column: its header, and its value in a row. */
export interface CsvColumn<Row> {
  header: string;
  value: (row: Row) => CsvValue;
}

/** What an export answers with; `header=present` says the first line names the columns. */
export const CSV_MEDIA_TYPE = 'text/csv; charset=utf-8; header=present';

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One field: empty for null, a number as written, text made inert and quoted when needed. */
export function csvField(value: CsvValue): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const text = FORMULA_START.test(value) ? `'${value}` : value;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line: its fields, separated by commas, ended by CRLF. */
export function csvLine(values: readonly CsvValue[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

/** The header row of these columns. */
export function csvHeader<Row>(columns: readonly CsvColumn<Row>[]): string {
  return csvLine(columns.map((column) => column.header));
}

/** The lines of these rows. */
export function csvRows<Row>(columns: readonly CsvColumn<Row>[], rows: readonly Row[]): string {
  return rows.map((row) => csvLine(columns.map((column) => column.value(row)))).join('');
}

/** A whole CSV text: the header row and the rows. */
export function csvText<Row>(columns: readonly CsvColumn<Row>[], rows: readonly Row[]): string {
  return csvHeader(columns) + csvRows(columns, rows);
}

/** An export's file name: what it holds and when it was made (`licenses-2026-06-01T12-00-00Z.csv`). */
export function exportFilename(what: string, at: Date): string {
  return `${what}-${at
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/:/g, '-')}.csv`;
}

/** `Content-Disposition` of a download named `filename` (ASCII letters, digits, `.`, `-`, `_`). */
export function attachment(filename: string): string {
  return `attachment; filename="${filename.replace(/[^A-Za-z0-9._-]/g, '_')}"`;
}

/**
 * Until the response can take more (`drain`) or is gone (`close`): a client that reads slowly
 * holds the export back, rather than the export holding its rows in memory. A client that stops
 * reading altogether is cut off by the server's idle timeout, which closes the response.
 */
function writable(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Streams a CSV export of any size: the header row, then each batch's rows as it comes, one
 * batch in memory at a time, waiting for the client to read when its buffer is full. The first
 * batch is read before anything is sent, so a refusal (bad input, a service that does not
 * answer) is still an error envelope. A failure after that cannot change the status already
 * sent: the response is cut off (no last chunk), so the client sees an incomplete export rather
 * than a short one, and the failure is logged. A client that goes away stops the reading.
 */
export async function streamCsv<Row>(
  res: Response,
  {
    filename,
    columns,
    batches,
    logger,
  }: {
    filename: string;
    columns: readonly CsvColumn<Row>[];
    batches: AsyncIterable<readonly Row[]>;
    logger: Logger;
  },
): Promise<void> {
  const iterator = batches[Symbol.asyncIterator]();
  const first = await iterator.next();
  res.status(200);
  res.setHeader('Content-Type', CSV_MEDIA_TYPE);
  res.setHeader('Content-Disposition', attachment(filename));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  let closed = false;
  res.on('close', () => (closed = true));
  try {
    let batch = first;
    let text = csvHeader(columns);
    while (!closed) {
      if (!batch.done) text += csvRows(columns, batch.value);
      if (!res.write(text) && !closed) await writable(res);
      text = '';
      if (batch.done || closed) break;
      batch = await iterator.next();
    }
    if (closed) await iterator.return?.();
    else res.end();
  } catch (error) {
    logger.error({ err: error, filename }, 'an export failed after it started; it was cut off');
    res.destroy();
  }
}
