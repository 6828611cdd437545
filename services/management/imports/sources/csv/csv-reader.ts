import type { Readable } from 'node:stream';
import {
  IMPORTED_STATUSES,
  type ImportedActivation,
  type ImportedLicense,
  type ImportRecord,
  type ImportedStatus,
} from '../../imported-license.js';
import { ActivationGroups } from '../activation-groups.js';
import { columnsOf, delimitedRows, type Row } from '../delimited-rows.js';
import { bad, good, isoDate, limit, limitBelowActivations, orNull, refusal } from '../fields.js';
import type { Checked } from '../fields.js';
import { CSV_ACTIVATION_COLUMNS, CSV_REQUIRED_COLUMNS } from './csv-columns.js';

/** A seller's CSV of licenses, and optionally a second file of `license_key,identifier` rows. */
export interface CsvImportInput {
  licenses: Readable;
  activations?: Readable;
}

const LICENSES = 'The licenses file';
const ACTIVATIONS = 'The activations file';

/** The records of a seller's CSV (docs/imports.md, "CSV"), in the file's order. */
export async function* readCsvImport(input: CsvImportInput): AsyncGenerator<ImportRecord> {
  const groups = new ActivationGroups('csv', (key) => `license_key ${key}`);
  if (input.activations !== undefined) yield* readActivations(input.activations, groups);
  const rows = delimitedRows(input.licenses, 'csv', LICENSES);
  const header = await rows.next();
  if (header.done === true) return;
  const at = columnsOf(header.value.values, CSV_REQUIRED_COLUMNS, LICENSES);
  const column = (row: Row, name: string) => {
    const index = header.value.values.indexOf(name);
    return index < 0 ? '' : (row.values[index] ?? '');
  };
  const identifierColumns = header.value.values.flatMap((name, index) =>
    name === 'identifier' ? [index] : [],
  );
  const seen = new Map<string, number>();
  for await (const row of rows) {
    const key = row.values[at.license_key] ?? '';
    if (key === '') {
      yield refusal('csv', row.line, null, 'license_key is missing');
      continue;
    }
    const first = seen.get(key);
    if (first !== undefined) {
      yield refusal('csv', row.line, key, `license_key appears again (first in row ${first})`);
      continue;
    }
    seen.set(key, row.line);
    const own = identifierColumns.flatMap((index) => {
      const identifier = row.values[index] ?? '';
      return identifier === '' ? [] : [{ identifier, exempt: false, activated_at: null }];
    });
    const license = csvLicense(row, key, column, [...own, ...groups.take(key)]);
    yield license.ok ? license.value : refusal('csv', row.line, key, license.reason);
  }
  yield* groups.unclaimed();
}

function csvLicense(
  row: Row,
  key: string,
  column: (row: Row, name: string) => string,
  activations: ImportedActivation[],
): Checked<ImportedLicense> {
  const product = column(row, 'product_id');
  if (product === '') return bad('product_id is missing');
  const status = csvStatus(column(row, 'status'));
  if (!status.ok) return status;
  const expiresText = column(row, 'expires_at');
  const expires = expiresText === '' ? good(null) : isoDate('expires_at', expiresText);
  if (!expires.ok) return expires;
  const activationLimit = limit('activation_limit', column(row, 'activation_limit'));
  if (!activationLimit.ok) return activationLimit;
  const tooMany = limitBelowActivations(activationLimit.value, activations);
  if (tooMany !== null) return bad(tooMany);
  const email = orNull(column(row, 'customer_email'));
  const name = orNull(column(row, 'customer_name'));
  return good({
    source: 'csv',
    source_id: key,
    line: row.line,
    license_key: key,
    product,
    plan: orNull(column(row, 'plan')),
    plan_hint: null,
    status: status.value,
    expires_at: expires.value,
    activation_limit: activationLimit.value,
    customer: email === null && name === null ? null : { email, name },
    parent_key: null,
    activations,
  });
}

function csvStatus(text: string): Checked<ImportedStatus> {
  if (text === '') return good('active');
  return (IMPORTED_STATUSES as readonly string[]).includes(text)
    ? good(text as ImportedStatus)
    : bad(`status is not one of ${IMPORTED_STATUSES.join(', ')}: ${text}`);
}

async function* readActivations(
  input: Readable,
  groups: ActivationGroups,
): AsyncGenerator<ImportRecord> {
  const rows = delimitedRows(input, 'csv', ACTIVATIONS);
  const header = await rows.next();
  if (header.done === true) return;
  const at = columnsOf(header.value.values, CSV_ACTIVATION_COLUMNS, ACTIVATIONS);
  for await (const row of rows) {
    const key = row.values[at.license_key] ?? '';
    const identifier = row.values[at.identifier] ?? '';
    if (key === '' || identifier === '') {
      const missing = key === '' ? 'license_key' : 'identifier';
      yield refusal('csv', row.line, orNull(key), `activations file: ${missing} is missing`);
      continue;
    }
    groups.add(key, row.line, { identifier, exempt: false, activated_at: null });
  }
}
