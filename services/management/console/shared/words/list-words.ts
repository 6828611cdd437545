/**
 * The console's words for its lists: the licenses and the download log, their orders, pages,
 * exports and bulk changes, and the customer and metadata of a license.
 */
import {
  MAX_BULK_LICENSES,
  MAX_EXTEND_DAYS,
  MAX_METADATA_KEYS,
  MAX_METADATA_VALUE_LENGTH,
  type DownloadLogSortField,
  type LicenseSortField,
} from '../../../../../libs/contracts/bounds.js';
import type { SortState } from '../lib/list-state.js';

/** The license columns an admin can order the list by, as their headings name them. */
export const LICENSE_SORT_HEADINGS: Record<LicenseSortField, string> = {
  license_key: 'License key',
  customer_email: 'Customer',
  expires_at: 'Expires',
  created_at: 'Issued',
};

/** The log columns an admin can order it by. */
export const LOG_SORT_HEADINGS: Record<DownloadLogSortField, string> = {
  at: 'When',
  license_key: 'License key',
};

/** What pressing a sortable heading does, for its button's name. */
export function sortButtonLabel(heading: string, state: SortState): string {
  switch (state) {
    case 'ascending':
      return `${heading}, sorted ascending; sort descending`;
    case 'descending':
      return `${heading}, sorted descending; sort ascending`;
    case 'none':
      return `Sort by ${heading.toLowerCase()}`;
  }
}

/** The arrow beside a sorted heading (hidden from screen readers, which read aria-sort). */
export const SORT_ARROWS: Record<SortState, string> = {
  ascending: '▲',
  descending: '▼',
  none: '',
};

export const LIST_WORDS = {
  pageSize: 'Rows per page',
  searchHint:
    'The first characters of a key; a site, device, e-mail or instance in any spelling; ' +
    "a customer's e-mail address; or a metadata value, such as an order id.",
  export: 'Export CSV',
  exportHint: 'Every row of this search, in this order, as a CSV file.',
  exporting: 'Preparing the CSV file…',
  exported: (filename: string) => `${filename} is ready: your browser saves it.`,
  logRange: 'Dates',
  logFrom: 'From',
  logTo: 'To',
  logRangeHint: 'Days in your time zone, both included; empty: no limit.',
  logBackwards: 'The range ends before it starts: set To on or after From.',
};

export const SELECTION_WORDS = {
  selectAll: 'Select every license on this page',
  /** A card's selection box, on a phone. */
  selectOne: 'Select',
  select: (key: string) => `Select license ${key}`,
  selected: (count: number) => `${count} license${count === 1 ? '' : 's'} selected`,
  region: 'Change the selected licenses',
  status: 'New status',
  changeStatus: 'Change status',
  days: 'Extend by (days)',
  daysHint: `Added to each expiry date, 1 to ${MAX_EXTEND_DAYS}; a license that never expires is refused.`,
  extend: 'Extend expiry',
  expiry: 'New expiry',
  expiryHint: 'Your time zone; empty: never expires.',
  setExpiry: 'Set expiry',
  exportSelected: 'Export selected',
  clear: 'Clear selection',
  limit: `Up to ${MAX_BULK_LICENSES} licenses at once: a page of the list.`,
};

export const CUSTOMER_WORDS = {
  heading: 'Customer and metadata',
  customer: 'Customer',
  none: 'None recorded',
  email: 'Customer e-mail',
  emailHint: 'Stored lower-cased; the license search finds it in any spelling. Empty: no customer.',
  name: 'Customer name',
  metadata: 'Metadata',
  metadataHint:
    `Up to ${MAX_METADATA_KEYS} entries, such as order_id. Keys: a letter, then letters, ` +
    `digits, _ or -, up to 40. Values: up to ${MAX_METADATA_VALUE_LENGTH} characters; the ` +
    'license search finds a license by any of them.',
  key: 'Key',
  value: 'Value',
  addEntry: 'Add an entry',
  removeEntry: (key: string) => (key === '' ? 'Remove this entry' : `Remove entry ${key}`),
  save: 'Save customer and metadata',
  saved: 'The customer and metadata are saved.',
  hidden: 'Shown to admins only: never in the public API or the customer portal.',
};
