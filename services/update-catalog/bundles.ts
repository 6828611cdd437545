import { LicensingError } from '../../libs/contracts/index.js';

/**
 * Rules for a bundle's items (spec 2.2): each item is an existing product other than the bundle
 * itself, listed once. A bundle may contain another bundle, but only one level is resolved when
 * a license is checked, so the inner bundle's products are not covered.
 */
export function checkBundleItems(
  bundleId: number | undefined,
  items: readonly number[],
  existingIds: ReadonlySet<number>,
): number[] {
  const unique = [...new Set(items)];
  if (unique.length !== items.length) {
    throw new LicensingError('INVALID_REQUEST', 'bundle_items lists a product more than once.');
  }
  if (bundleId !== undefined && unique.includes(bundleId)) {
    throw new LicensingError('INVALID_REQUEST', 'A bundle cannot contain itself.');
  }
  const missing = unique.filter((id) => !existingIds.has(id));
  if (missing.length > 0) {
    throw new LicensingError(
      'INVALID_REQUEST',
      `bundle_items names products that do not exist: ${missing.join(', ')}.`,
    );
  }
  return unique;
}
