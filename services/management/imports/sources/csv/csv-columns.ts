/**
 * The columns of the CSV a seller fills in to import licenses (docs/imports.md, "CSV"), and the
 * template the console offers for download: the header row alone, so that nothing in it is
 * imported by mistake.
 */
export const CSV_LICENSE_COLUMNS = [
  'license_key',
  'product_id',
  'plan',
  'status',
  'expires_at',
  'activation_limit',
  'customer_email',
  'customer_name',
  'identifier',
] as const;

export const CSV_REQUIRED_COLUMNS = ['license_key', 'product_id'] as const;

/** The activations file's columns, when activations come in a file of their own. */
export const CSV_ACTIVATION_COLUMNS = ['license_key', 'identifier'] as const;

export const CSV_TEMPLATE_FILE_NAME = 'licenses-import-template.csv';

export const CSV_TEMPLATE = `${CSV_LICENSE_COLUMNS.join(',')}\r\n`;

export const CSV_ACTIVATIONS_TEMPLATE = `${CSV_ACTIVATION_COLUMNS.join(',')}\r\n`;
