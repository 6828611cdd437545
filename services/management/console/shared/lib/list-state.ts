/**
 * What the console's lists decide without the page: the order a column's heading gives, the
 * page sizes, a date range from two days, the metadata form's rows, a bulk change's outcome in
 * words. Plain functions, so test/unit/console-lists.test.ts checks them directly.
 */
import type { BulkLicenseChangeResult, Metadata } from '../../../../../libs/contracts/index.js';
import { orderOf, type SortOf } from '../../../../../libs/contracts/bounds.js';

/**
 * Rows per page the lists offer; a whole page can be changed at once, so none is over
 * MAX_BULK_LICENSES (test/unit/console-lists.test.ts checks).
 */
export const PAGE_SIZES = [25, 50, 100] as const satisfies readonly number[];
export type PageSize = (typeof PAGE_SIZES)[number];
export const DEFAULT_PAGE_SIZE: PageSize = 25;

/** How a list is ordered by a column: `aria-sort`'s words. */
export type SortState = 'ascending' | 'descending' | 'none';

export function sortState<Field extends string>(sort: SortOf<Field>, field: Field): SortState {
  const order = orderOf(sort);
  if (order.field !== field) return 'none';
  return order.descending ? 'descending' : 'ascending';
}

/**
 * The order after a column's heading is pressed: its own order turned around, or, from another
 * column, the way it reads best first: dates newest first (`newestFirst`), text A to Z.
 */
export function nextSort<Field extends string>(
  sort: SortOf<Field>,
  field: Field,
  newestFirst: readonly Field[],
): SortOf<Field> {
  const state = sortState(sort, field);
  const descending = state === 'none' ? newestFirst.includes(field) : state === 'ascending';
  return descending ? `-${field}` : field;
}

/** A day of a date input (`2026-06-01`) as the instant it starts, in the viewer's time zone. */
function dayStart(day: string, laterBy = 0): string | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return null;
  const date = new Date(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + laterBy);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/**
 * The download log's range from two days of the viewer's calendar, both included: from the
 * start of `from` to the start of the day after `to`. An empty day leaves that end open.
 */
export function dayRange(from: string, to: string): { from: string | null; to: string | null } {
  return { from: dayStart(from), to: dayStart(to, 1) };
}

/** A row of the metadata form. */
export interface MetadataRow {
  key: string;
  value: string;
}

/** The form's rows of a license's metadata, in its order. */
export function metadataRows(metadata: Metadata): MetadataRow[] {
  return Object.entries(metadata).map(([key, value]) => ({ key, value }));
}

/**
 * The metadata the form sends: its rows, keys trimmed and values as typed (the API says what
 * else it refuses), a row left empty dropped; a key given twice is said rather than sent.
 */
export function metadataBody(
  rows: readonly MetadataRow[],
): { metadata: Record<string, string> } | { problem: string } {
  const entries = new Map<string, string>();
  for (const { key, value } of rows) {
    const name = key.trim();
    if (name === '' && value.trim() === '') continue;
    if (entries.has(name)) return { problem: `The key ${name} is given twice.` };
    entries.set(name, value);
  }
  // Defined, never assigned: even a key such as __proto__ is sent for the API to judge.
  return { metadata: Object.fromEntries(entries) };
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/** What a bulk change did, in words: how many changed, how many were refused. */
export function bulkOutcomeWords(result: BulkLicenseChangeResult): string {
  const changed = `${plural(result.succeeded, 'license')} changed`;
  return result.failed === 0 ? `${changed}.` : `${changed}; ${result.failed} refused:`;
}
