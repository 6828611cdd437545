import { ObjectId, type Document, type Filter } from 'mongodb';
import type { ListCursor } from '../contracts/index.js';

/**
 * The order of an admin list in MongoDB (docs/api-decisions.md, "Lists: order, pages,
 * exports"): one stored field, then `_id` when the field is not unique, both the same way, so
 * the order is total and stable. An index on exactly these fields (or them reversed) serves it.
 */
export interface StoredOrder {
  /** The stored field, in dot notation (`customer.email`). */
  path: string;
  descending: boolean;
  /** The field is unique (a license key): it breaks its own ties. */
  unique: boolean;
}

/** The sort of a stored order. */
export function sortOf({ path, descending, unique }: StoredOrder): Record<string, 1 | -1> {
  const direction = descending ? -1 : 1;
  return unique ? { [path]: direction } : { [path]: direction, _id: direction };
}

/** A sort value as a cursor carries it: a date as ISO text. */
export type SortValue = Date | string | number | null;

/** Where a list goes on after this record: its sort value and id (ListCursor). */
export function cursorAt(value: SortValue | undefined, id: ObjectId): ListCursor {
  return {
    value: value instanceof Date ? value.toISOString() : (value ?? null),
    id: id.toHexString(),
  };
}

/**
 * The records after the one a cursor names, in a stored order: a filter whose every branch
 * starts with the order's field, so its index serves it. MongoDB sorts null (and a missing field)
 * before any value, while a comparison with a value never matches null, so the nulls are named:
 * after a value, ascending, none are left; descending, all of them are.
 */
export function afterCursor(order: StoredOrder, value: SortValue, id: string): Filter<Document> {
  const { path, descending, unique } = order;
  const beyond = descending ? '$lt' : '$gt';
  const tie = { [path]: value, _id: { [beyond]: new ObjectId(id) } };
  if (value === null) {
    // Ascending: every value is after null. Descending: only nulls come after it.
    return descending ? tie : { $or: [{ [path]: { $ne: null } }, tie] };
  }
  const branches: Filter<Document>[] = [{ [path]: { [beyond]: value } }];
  if (descending) branches.push({ [path]: null });
  if (!unique) branches.push(tie);
  return branches.length === 1 ? branches[0]! : { $or: branches };
}
