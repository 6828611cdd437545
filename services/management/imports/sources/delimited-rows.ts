import type { Readable } from 'node:stream';
import { parse } from 'csv-parse';
import { ImportSourceError } from './source-error.js';

/**
 * The rows of a delimited file, streamed: `csv` is RFC 4180 (phpMyAdmin's and spreadsheets'
 * CSV, quotes doubled), `tsv` is MySQL's batch output as `wp db query` writes it (no quotes;
 * a tab, a line break or a backslash inside a value written as `\t`, `\n`, `\\`). A byte order
 * mark is dropped and empty lines are skipped. Row numbers count the header as row 1.
 */
export type DelimitedFormat = 'csv' | 'tsv';

export interface Row {
  line: number;
  values: string[];
}

const MYSQL_ESCAPES: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', r: '\r', '0': '\0' };

const unescapeMysql = (value: string) =>
  value.includes('\\')
    ? value.replace(/\\(.)/gs, (whole, char: string) => MYSQL_ESCAPES[char] ?? whole)
    : value;

export async function* delimitedRows(
  input: Readable,
  format: DelimitedFormat,
  what: string,
): AsyncGenerator<Row> {
  const parser = input.pipe(
    parse({
      bom: true,
      delimiter: format === 'csv' ? ',' : '\t',
      quote: format === 'csv' ? '"' : false,
      relax_column_count: true,
      skip_empty_lines: true,
    }),
  );
  // A failing input (a file that cannot be opened) ends the rows as the parser's own errors do.
  input.once('error', (error) => parser.destroy(error));
  let line = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      line += 1;
      yield { line, values: format === 'tsv' ? record.map(unescapeMysql) : record };
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new ImportSourceError(`${what} cannot be read past row ${line}: ${message}`);
  }
}

/** Where each named column stands in a header; the missing ones are refused by name. */
export function columnsOf<Name extends string>(
  header: readonly string[],
  required: readonly Name[],
  what: string,
): Record<Name, number> {
  const missing = required.filter((name) => !header.includes(name));
  if (missing.length > 0) {
    throw new ImportSourceError(`${what} has no column ${missing.join(', ')} in its header row`);
  }
  return Object.fromEntries(required.map((name) => [name, header.indexOf(name)])) as Record<
    Name,
    number
  >;
}
