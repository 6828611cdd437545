import type { Response } from 'express';
import type { Logger } from '../../logging/index.js';

/**
 * CSV exports of the admin lists (docs/api-decisions.md, "Lists: order, pages, exports"): RFC
 * 4180 text in UTF-8 with a header row, lines ending in CRLF, a field quoted when it holds a
 * comma, a semicolon, a tab, a double quote (doubled inside) or a line break. Text that a
 * spreadsheet would read as a formula is written with a `'` before it (OWASP's advice), so opening
 * an export runs nothing a customer typed: see `inert`. Nothing here reads Node or Express at run
 * time: the console builds its CSV of a selection with it too.
 */

export type CsvValue = string | number | boolean | null;

/** One column: its header, and its value in a row. */
export interface CsvColumn<Row> {
  header: string;
  value: (row: Row) => CsvValue;
}

/** What an export answers with; `header=present` says the first line names the columns. */
export const CSV_MEDIA_TYPE = 'text/csv; charset=utf-8; header=present';

/**
 * Where a spreadsheet may start a cell in a field: at its start, and after a `;` (the list
 * separator where the comma is the decimal mark, as in much of Europe), a tab (a file read as
 * tab-separated) or a line break. Such a reader splits there wherever it stands, since the
 * field's quotes, in the middle of its cell, mean nothing to it; and it ends the row at a line
 * break. A `,` starts no cell inside a field: a field holding one is quoted, its quote right
 * after the `,` or the line start before it, where every reader that splits at `,` honours it.
 */
const CELL_BREAK = '[;\t\r\n]';
/** A cell starting so is read as a formula; the quotes before, a reader may take as quoting. */
const FORMULA = '"*[=+\\-@\t\r]';
const FORMULA_START = new RegExp(`^${FORMULA}`);
const FORMULA_AFTER_BREAK = new RegExp(`${CELL_BREAK}(?=${FORMULA})`, 'g');
const NEEDS_QUOTES = /[",;\t\r\n]/;

/** The text with a `'` before each cell of it a spreadsheet would read as a formula. */
function inert(text: string): string {
  const inside = text.replace(FORMULA_AFTER_BREAK, "$&'");
  return FORMULA_START.test(text) ? `'${inside}` : inside;
}

/** One field: empty for null, a number as written, text made inert and quoted when needed. */
export function csvField(value: CsvValue): string {
  if (value === null) return '';
  if (typeof value !== 'string') return String(value);
  const text = inert(value);
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
