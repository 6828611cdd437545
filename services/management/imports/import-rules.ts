import type { ImportLicense, ImportMappings, RequestOf } from '../../../libs/contracts/index.js';
import type { ImportedLicense } from './imported-license.js';

/**
 * How an import run reads a source's licenses here (docs/imports.md, "Products and plans"): which
 * product and plan each one's references are, and the license the license service is sent.
 * Pure: the run (import-run.ts) reads the catalog and the plans.
 */

/** The products and plans there are here, as a run read them at its start. */
export interface KnownCatalog {
  productIds: ReadonlySet<number>;
  /** Plan ids by their name as names are compared (`planNameKey`). */
  plansByName: ReadonlyMap<string, number>;
  planIds: ReadonlySet<number>;
}

/** Plan names compared as the license service compares them: case, spacing and forms aside. */
export const planNameKey = (name: string) =>
  name.normalize('NFKC').trim().replace(/\s+/g, ' ').toLowerCase();

/** The reference a license's plan is known by: the source's plan id, else its plan's name. */
export const planReference = (license: ImportedLicense): string | null =>
  license.plan ?? license.plan_hint?.name ?? null;

/** The product here of a source's product reference; null when it is none. */
export function productOf(
  reference: string,
  mappings: ImportMappings,
  catalog: KnownCatalog,
): number | null {
  const mapped = mappings.products[reference];
  if (mapped !== undefined) return catalog.productIds.has(mapped) ? mapped : null;
  if (!/^[1-9][0-9]{0,14}$/.test(reference)) return null;
  const id = Number(reference);
  return catalog.productIds.has(id) ? id : null;
}

/**
 * The plan here of a license's plan: mapped by its reference, else the plan of that name (the
 * reference, then the name the source gives its plan); null when it is none.
 */
export function planOf(
  license: ImportedLicense,
  mappings: ImportMappings,
  catalog: KnownCatalog,
): number | null {
  const reference = planReference(license);
  if (reference === null) return null;
  const mapped = mappings.plans[reference];
  if (mapped !== undefined) return catalog.planIds.has(mapped) ? mapped : null;
  for (const name of [reference, license.plan_hint?.name]) {
    const id = name === undefined ? undefined : catalog.plansByName.get(planNameKey(name));
    if (id !== undefined) return id;
  }
  return null;
}

/**
 * The plan `create_plans` makes of what the source says of a plan: its name (else its
 * reference), activation type and limit (none given: unlimited). Null when the source does not
 * say which activation type, which no default may stand for.
 */
export function planToCreate(license: ImportedLicense): RequestOf<'license.createPlan'> | null {
  const hint = license.plan_hint;
  const name = hint?.name.trim() || planReference(license);
  if (hint?.activation_type == null || !name) return null;
  return {
    name,
    activation_type: hint.activation_type,
    activation_limit: hint.activation_limit ?? 0,
  };
}

/**
 * The license the license service is sent: the source's, on the product and plan here. A
 * customer without an address is none (a license's customer is known by its address).
 */
export function importLicense(
  license: ImportedLicense,
  on: { product_id: number; plan_id: number },
): ImportLicense {
  const email = license.customer?.email ?? null;
  return {
    line: license.line,
    imported_from: { source: license.source, source_id: license.source_id },
    license_key: license.license_key,
    product_id: on.product_id,
    plan_id: on.plan_id,
    status: license.status,
    expires_at: license.expires_at,
    activation_limit: license.activation_limit,
    customer: email === null ? null : { email, name: license.customer?.name ?? null },
    activations: license.activations.map((a) => ({ ...a })),
  };
}
