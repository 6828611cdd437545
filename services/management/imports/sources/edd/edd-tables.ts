import type { ImportedStatus } from '../../imported-license.js';

/**
 * EDD Software Licensing 3.6+'s two tables, by the column names of its own schema
 * (`EDD_SL_License_DB`, `EDD_SL_Activations_DB`): the header row of an export must name them.
 * The customer's e-mail address and name live in EDD's customers table, not here: an export
 * that joins them in may add `customer_email` and `customer_name`, and one that reads each
 * license's own limit from its meta may add `activation_limit`.
 */
export const EDD_LICENSE_COLUMNS = [
  'id',
  'license_key',
  'status',
  'download_id',
  'price_id',
  'expiration',
  'parent',
] as const;

export const EDD_OPTIONAL_LICENSE_COLUMNS = [
  'customer_email',
  'customer_name',
  'activation_limit',
] as const;

export const EDD_ACTIVATION_COLUMNS = ['site_name', 'license_id', 'activated', 'is_local'] as const;

/**
 * EDD's statuses in the spec's (3.1). `inactive` is EDD's word for a valid key activated on no
 * site yet: here that is an active license with no activations. `disabled` (an admin's switch,
 * also set on a refund, and undone by enabling it again) is a suspension here.
 */
export const EDD_STATUSES: Record<string, ImportedStatus> = {
  active: 'active',
  inactive: 'active',
  expired: 'expired',
  disabled: 'suspended',
};

/** What MySQL writes for a NULL, in phpMyAdmin's CSV and in `wp db query`'s output alike. */
export const isNull = (text: string | undefined) =>
  text === undefined || text === '' || text === 'NULL';
