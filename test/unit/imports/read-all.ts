import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ImportRecord } from '../../../services/management/imports/imported-license.js';

/** A fixture of test/fixtures/imports as a stream, the way the import run hands files over. */
export const fixture = (path: string) =>
  createReadStream(fileURLToPath(new URL(`../../fixtures/imports/${path}`, import.meta.url)));

/** Every record a reader yields, checked against the shape the import run checks them with. */
export async function readAll(records: AsyncIterable<ImportRecord>): Promise<ImportRecord[]> {
  const { ImportRecord: schema } =
    await import('../../../services/management/imports/imported-license.js');
  const all: ImportRecord[] = [];
  for await (const record of records) all.push(schema.parse(record) as ImportRecord);
  return all;
}

export const byLine = (records: readonly ImportRecord[], line: number) =>
  records.find((record) => record.line === line);
