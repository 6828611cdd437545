import { refused, type Refused } from '../../libs/contracts/index.js';

/** The bundle's items, each listed once; or refused with INVALID_REQUEST. */
export type BundleItemsCheck = { ok: true; items: number[] } | Refused;

/**
 * Rules for a bundle's items (spec 2.2): each item is an existing product other than the bundle
 * itself, listed once. A bundle may contain another bundle, but only one level is resolved when
 * a license is checked, so the inner bundle's products are not covered.
 */
export function checkBundleItems({
  bundleId,
  items,
  existingIds,
}: {
  /** Undefined while the bundle has no id yet (created under the next id of the sequence). */
  bundleId: number | undefined;
  items: readonly number[];
  existingIds: ReadonlySet<number>;
}): BundleItemsCheck {
  const unique = [...new Set(items)];
  if (unique.length !== items.length) {
    return refused('INVALID_REQUEST', 'bundle_items lists a product more than once.');
  }
  if (bundleId !== undefined && unique.includes(bundleId)) {
    return refused('INVALID_REQUEST', 'A bundle cannot contain itself.');
  }
  const missing = unique.filter((id) => !existingIds.has(id));
  if (missing.length > 0) {
    return refused(
      'INVALID_REQUEST',
      `bundle_items names products that do not exist: ${missing.join(', ')}.`,
    );
  }
  return { ok: true, items: unique };
}
