import type { Readable } from 'node:stream';
import type { ImportedLicense, ImportRecord } from '../../imported-license.js';
import { ActivationGroups } from '../activation-groups.js';
import { columnsOf, delimitedRows, type DelimitedFormat, type Row } from '../delimited-rows.js';
import {
  bad,
  good,
  limit,
  limitBelowActivations,
  orNull,
  refusal,
  unixSeconds,
} from '../fields.js';
import type { Checked } from '../fields.js';
import {
  EDD_ACTIVATION_COLUMNS,
  EDD_LICENSE_COLUMNS,
  EDD_OPTIONAL_LICENSE_COLUMNS,
  EDD_STATUSES,
  isNull,
} from './edd-tables.js';

/**
 * The `edd_licenses` table and, optionally, `edd_license_activations`, each a file with a
 * header row: `csv` for phpMyAdmin's CSV export, `tsv` for `wp db query`'s output.
 */
export interface EddImportInput {
  format: DelimitedFormat;
  licenses: Readable;
  activations?: Readable;
}

const LICENSES = 'The edd_licenses file';
const ACTIVATIONS = 'The edd_license_activations file';

type Column = (row: Row, name: string) => string;

/**
 * The licenses of an EDD Software Licensing site, in the file's order, each with its current
 * activations (those with `activated` 1; `is_local` ones exempt). The activations file is read
 * first and held by license id, so it may be in any order. A bundle's child names its parent's
 * key: a child read before its parent waits for it, and one whose parent never comes is refused.
 */
export async function* readEddImport(input: EddImportInput): AsyncGenerator<ImportRecord> {
  const groups = new ActivationGroups('edd', (id) => `license_id ${id}`);
  if (input.activations !== undefined) {
    yield* readActivations(input.activations, input.format, groups);
  }
  const rows = delimitedRows(input.licenses, input.format, LICENSES);
  const header = await rows.next();
  if (header.done === true) return;
  const names = header.value.values;
  columnsOf(names, EDD_LICENSE_COLUMNS, LICENSES);
  const known = new Set<string>([...EDD_LICENSE_COLUMNS, ...EDD_OPTIONAL_LICENSE_COLUMNS]);
  const column: Column = (row, name) => {
    const index = known.has(name) ? names.indexOf(name) : -1;
    return index < 0 ? '' : (row.values[index] ?? '');
  };
  const keys = new Map<string, string>();
  const waiting = new Map<string, ImportedLicense[]>();
  for await (const row of rows) {
    const id = column(row, 'id');
    const license = eddLicense(row, column, groups);
    if (!license.ok) {
      yield refusal('edd', row.line, orNull(id), license.reason);
      continue;
    }
    const parent = column(row, 'parent');
    if (isNull(parent) || parent === '0') {
      yield license.value;
    } else if (keys.has(parent)) {
      yield { ...license.value, parent_key: keys.get(parent) ?? null };
    } else {
      waiting.set(parent, [...(waiting.get(parent) ?? []), license.value]);
    }
    keys.set(id, license.value.license_key);
    for (const child of waiting.get(id) ?? []) {
      yield { ...child, parent_key: license.value.license_key };
    }
    waiting.delete(id);
  }
  for (const [parent, children] of waiting) {
    for (const child of children) {
      yield refusal(
        'edd',
        child.line,
        child.source_id,
        `parent license ${parent} is in no row of the licenses file`,
      );
    }
  }
  yield* groups.unclaimed();
}

function eddLicense(row: Row, column: Column, groups: ActivationGroups): Checked<ImportedLicense> {
  const id = column(row, 'id');
  if (!/^\d+$/.test(id)) return bad(`id is not a license id: ${id}`);
  // Taken first, so that a license refused for another reason leaves no activations unclaimed.
  const activations = groups.take(id);
  const key = column(row, 'license_key');
  if (key === '') return bad('license_key is missing');
  const product = column(row, 'download_id');
  if (isNull(product) || product === '0') return bad('download_id is missing');
  const statusText = column(row, 'status');
  const status = EDD_STATUSES[statusText.toLowerCase()];
  if (status === undefined) {
    return bad(`status is not one of ${Object.keys(EDD_STATUSES).join(', ')}: ${statusText}`);
  }
  const expirationText = column(row, 'expiration');
  const expires =
    isNull(expirationText) || expirationText === '0'
      ? good(null)
      : unixSeconds('expiration', expirationText);
  if (!expires.ok) return expires;
  const limitText = column(row, 'activation_limit');
  const activationLimit = limit('activation_limit', isNull(limitText) ? '' : limitText);
  if (!activationLimit.ok) return activationLimit;
  const tooMany = limitBelowActivations(activationLimit.value, activations);
  if (tooMany !== null) return bad(tooMany);
  const priceId = column(row, 'price_id');
  const email = orNull(column(row, 'customer_email'));
  const name = orNull(column(row, 'customer_name'));
  return good({
    source: 'edd',
    source_id: id,
    line: row.line,
    license_key: key,
    product,
    plan: isNull(priceId) ? null : priceId,
    plan_hint: null,
    status,
    expires_at: expires.value,
    activation_limit: activationLimit.value,
    customer: email === null && name === null ? null : { email, name },
    parent_key: null,
    activations,
  });
}

async function* readActivations(
  input: Readable,
  format: DelimitedFormat,
  groups: ActivationGroups,
): AsyncGenerator<ImportRecord> {
  const rows = delimitedRows(input, format, ACTIVATIONS);
  const header = await rows.next();
  if (header.done === true) return;
  const at = columnsOf(header.value.values, EDD_ACTIVATION_COLUMNS, ACTIVATIONS);
  for await (const row of rows) {
    const licenseId = row.values[at.license_id] ?? '';
    const site = row.values[at.site_name] ?? '';
    const activated = row.values[at.activated] ?? '';
    const reason = !/^\d+$/.test(licenseId)
      ? `license_id is not a license id: ${licenseId}`
      : site === ''
        ? 'site_name is missing'
        : !['0', '1'].includes(activated)
          ? `activated is not 0 or 1: ${activated}`
          : null;
    if (reason !== null) {
      yield refusal('edd', row.line, null, `activations file: ${reason}`);
      continue;
    }
    // A row with activated 0 is a site deactivated since: EDD keeps it, nothing here counts it.
    if (activated === '0') continue;
    const exempt = (row.values[at.is_local] ?? '') === '1';
    groups.add(licenseId, row.line, { identifier: site, exempt, activated_at: null });
  }
}
