import type { DownloadLogEntry, LicenseSummary } from '../../contracts/index.js';
import type { CsvColumn } from './csv.js';

/**
 * The columns of the CSV exports: the fields of the console's tables, in their order, each value
 * in a column of its own and as the API gives it (timestamps in ISO 8601 UTC, statuses and
 * outcomes by their API names, a limit of 0 for unlimited). The management API streams them;
 * the console writes its export of a selection with the same (so nothing here reads zod).
 */

export const licenseColumns: readonly CsvColumn<LicenseSummary>[] = [
  { header: 'license_key', value: (license) => license.license_key },
  { header: 'customer_email', value: (license) => license.customer?.email ?? null },
  { header: 'customer_name', value: (license) => license.customer?.name ?? null },
  { header: 'product', value: (license) => license.product },
  { header: 'plan', value: (license) => license.plan },
  { header: 'status', value: (license) => license.status },
  { header: 'activations_used', value: (license) => license.activations_used },
  { header: 'activation_limit', value: (license) => license.activation_limit },
  { header: 'expires_at', value: (license) => license.expires_at },
  { header: 'created_at', value: (license) => license.created_at },
  { header: 'last_check_at', value: (license) => license.last_check_at },
];

/** The download log's columns; `productTitle` names a product by its id (null: unknown). */
export function downloadLogColumns(
  productTitle: (id: number) => string | null,
): readonly CsvColumn<DownloadLogEntry>[] {
  return [
    { header: 'at', value: (entry) => entry.at },
    { header: 'product_id', value: (entry) => entry.product_id },
    {
      header: 'product',
      value: (entry) => (entry.product_id === null ? null : productTitle(entry.product_id)),
    },
    { header: 'outcome', value: (entry) => entry.outcome },
    { header: 'reason', value: (entry) => entry.reason },
    { header: 'license_key', value: (entry) => entry.license_key },
    { header: 'identifier', value: (entry) => entry.identifier },
    { header: 'ip', value: (entry) => entry.ip },
    { header: 'version', value: (entry) => entry.version },
  ];
}
