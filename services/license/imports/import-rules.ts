import type { ImportLicense } from '../../../libs/contracts/index.js';
import { checkIdentifier, identifierKey } from '../../../libs/identifier/index.js';
import type { NewLicense, PlanTerms } from '../licenses/license-store.js';
import type { ActivationRecord, ImportedFromRecord, LicenseRecord } from '../records.js';
import { storedCustomer } from '../rules.js';

/**
 * The rules of an import (docs/imports.md): what an imported license is once written here, and
 * whether a license stored under its key already holds it. Pure: the handler reads and writes.
 */

/** An imported license as it is to be stored: the license and its activations. */
export interface WantedImport {
  license: NewLicense & { imported_from: ImportedFromRecord };
  activations: ActivationRecord[];
}

/** A license stored under an imported key, with what the comparison needs of its activations. */
export interface StoredImport {
  license: LicenseRecord;
  activations: Pick<ActivationRecord, 'identifier_key' | 'exempt'>[];
}

export type Mapped = { ok: true; wanted: WantedImport } | { ok: false; reason: string };

/**
 * The license an imported one becomes on its plan: its key as given, the plan's type, lease and
 * exemptions, its own limit or else the plan's, and its activations normalised for the plan's
 * type as activate normalises them (spec 2.4). An identifier that cannot be one refuses the
 * license, rather than losing the activation; two that normalise alike are one activation.
 */
export function importedLicense(entry: ImportLicense, plan: PlanTerms, now: Date): Mapped {
  let customer: NewLicense['customer'] = null;
  if (entry.customer !== null) {
    const stored = storedCustomer(entry.customer);
    if (!stored.ok) return { ok: false, reason: stored.refusal.message };
    customer = stored.customer;
  }
  const activations: ActivationRecord[] = [];
  const seen = new Set<string>();
  for (const activation of entry.activations) {
    const checked = checkIdentifier(plan.activation_type, activation.identifier);
    if ('problem' in checked) {
      return {
        ok: false,
        reason: `Activation ${JSON.stringify(activation.identifier)}: ${checked.problem}`,
      };
    }
    const key = identifierKey(checked.identifier);
    if (seen.has(key)) continue;
    seen.add(key);
    activations.push({
      identifier: checked.identifier,
      identifier_key: key,
      name: null,
      ip: '',
      activated_at: activation.activated_at === null ? now : new Date(activation.activated_at),
      last_checkout_at: null,
      // A lease starts at the import, so that the lease task does not end them all at once.
      lease_expires_at:
        plan.lease_seconds === null ? null : new Date(now.getTime() + plan.lease_seconds * 1000),
      exempt: activation.exempt,
    });
  }
  return {
    ok: true,
    wanted: {
      license: {
        license_key: entry.license_key,
        product_id: entry.product_id,
        plan_id: plan.id,
        status: entry.status,
        expires_at: entry.expires_at === null ? null : new Date(entry.expires_at),
        auto_renew: false,
        next_payment_at: null,
        activation_type: plan.activation_type,
        activation_limit: entry.activation_limit ?? plan.activation_limit,
        lease_seconds: plan.lease_seconds,
        exempt_identifiers: [...plan.exempt_identifiers],
        exempt_limit: plan.exempt_limit,
        customer,
        metadata: {},
        imported_from: { ...entry.imported_from },
      },
      activations,
    },
  };
}

export type Classified =
  { outcome: 'create' } | { outcome: 'matched' } | { outcome: 'conflict'; differences: string[] };

const time = (date: Date | null) => (date === null ? null : date.getTime());
const activationSet = (activations: StoredImport['activations']) =>
  activations.map((a) => `${a.exempt ? 'exempt' : 'slot'}:${a.identifier_key}`).sort();

/**
 * Whether the license stored under an imported key holds the import: none stored is a license to
 * create; one holding the same product, plan, status, expiry, limit, customer, source and
 * activations (by identifier and exemption) is `matched`; any other is a conflict, naming the
 * fields that differ.
 */
export function classifyImport(stored: StoredImport | null, wanted: WantedImport): Classified {
  if (stored === null) return { outcome: 'create' };
  const has = stored.license;
  const want = wanted.license;
  const same: Record<string, boolean> = {
    product_id: has.product_id === want.product_id,
    plan_id: has.plan_id === want.plan_id,
    status: has.status === want.status,
    expires_at: time(has.expires_at) === time(want.expires_at),
    activation_limit: has.activation_limit === want.activation_limit,
    customer:
      (has.customer?.email ?? null) === (want.customer?.email ?? null) &&
      (has.customer?.name ?? null) === (want.customer?.name ?? null),
    imported_from:
      has.imported_from?.source === want.imported_from.source &&
      has.imported_from.source_id === want.imported_from.source_id,
    activations:
      activationSet(stored.activations).join('\n') === activationSet(wanted.activations).join('\n'),
  };
  const differences = Object.keys(same).filter((field) => !same[field]);
  return differences.length === 0 ? { outcome: 'matched' } : { outcome: 'conflict', differences };
}

/** The reason a conflict is reported with. */
export const conflictReason = (differences: string[]) =>
  `A license with this key exists with another ${differences.join(', ')}.`;
