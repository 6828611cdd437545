import type { ListCursor } from '../../libs/contracts/index.js';

/**
 * The orders of admin lists in memory, as MongoDB keeps them (libs/database/lists.ts): by a sort
 * value, null (a missing field) before any value, then by a record id of 24 hexadecimal digits,
 * both the same way; a cursor names the last record read, and the list goes on after it.
 */

export type MemorySortValue = Date | string | number | null;

/** A record's place in its list: its sort value and id. */
export interface Place {
  value: MemorySortValue;
  id: string;
}

function compareValues(a: MemorySortValue, b: MemorySortValue): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? -1 : 1;
  const x = a instanceof Date ? a.getTime() : a;
  const y = b instanceof Date ? b.getTime() : b;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Ascending by value then id; reversed when descending. */
export function comparePlaces(a: Place, b: Place, descending: boolean): number {
  const order = compareValues(a.value, b.value) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  return descending ? -order : order;
}

/** The records in order. */
export function sortedBy<T>(
  records: readonly T[],
  place: (record: T) => Place,
  descending: boolean,
) {
  return [...records].sort((a, b) => comparePlaces(place(a), place(b), descending));
}

/** The place a cursor names, its value a date when the field holds dates. */
export function placeOf(cursor: ListCursor, dates: boolean): Place {
  const value = cursor.value === null || !dates ? cursor.value : new Date(String(cursor.value));
  return { value, id: cursor.id };
}

/** The cursor of a record's place: a date as ISO text. */
export function cursorOf(place: Place): ListCursor {
  const value = place.value instanceof Date ? place.value.toISOString() : place.value;
  return { value, id: place.id };
}

/**
 * One batch of sorted records after `after` (null: from the start), and the cursor of its last
 * record when the batch is full.
 */
export function batchAfter<T>({
  sorted,
  place,
  after,
  dates,
  descending,
  limit,
}: {
  sorted: readonly T[];
  place: (record: T) => Place;
  after: ListCursor | null;
  dates: boolean;
  descending: boolean;
  limit: number;
}): { records: T[]; next: ListCursor | null } {
  const from = after === null ? null : placeOf(after, dates);
  const rest =
    from === null ? sorted : sorted.filter((r) => comparePlaces(place(r), from, descending) > 0);
  const records = rest.slice(0, limit);
  const last = records.at(-1);
  return {
    records,
    next: last !== undefined && records.length === limit ? cursorOf(place(last)) : null,
  };
}
