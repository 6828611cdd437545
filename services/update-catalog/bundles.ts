/** A refusal of the catalog's rules, as a value: the handlers turn it into the caller's error. */
export interface CatalogRefusal {
  code: 'INVALID_REQUEST';
  message: string;
}

export type BundleItemsCheck =
  { ok: true; items: number[] } | { ok: false; refusal: CatalogRefusal };

const refuse = (message: string): BundleItemsCheck => ({
  ok: false,
  refusal: { code: 'INVALID_REQUEST', message },
});

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
    return refuse('bundle_items lists a product more than once.');
  }
  if (bundleId !== undefined && unique.includes(bundleId)) {
    return refuse('A bundle cannot contain itself.');
  }
  const missing = unique.filter((id) => !existingIds.has(id));
  if (missing.length > 0) {
    return refuse(`bundle_items names products that do not exist: ${missing.join(', ')}.`);
  }
  return { ok: true, items: unique };
}
