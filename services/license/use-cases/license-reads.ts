import {
  LicensingError,
  internalError,
  type CallContext,
  type ExpiryTerms,
} from '../../../libs/contracts/index.js';
import type { LapsedRelease } from '../activations/activation-store.js';
import { announceLapsed, type LicenseEvents } from '../events.js';
import { expiryTermsOf } from '../lifecycle/expiry-rules.js';
import type { LicenseStore } from '../licenses/license-store.js';
import type { ActivationRecord, LicenseRecord } from '../records.js';
import { identifierKeysByType, unknownLicense, type LicensedProduct } from '../rules.js';
import type { PlanLookup } from './plan-lookup.js';

/** Where the license service learns a product's title and bundle items (spec 2.2). */
export interface ProductLookup {
  /** The product, or null when the catalog says it does not exist. */
  find(id: number): Promise<LicensedProduct | null>;
}

/**
 * A license with the activations a decision is about (rules.ts `LicenseState`) and its plan's
 * expiry terms, read live from the plan cache (lifecycle/expiry-rules.ts).
 */
export type LicenseView = LicenseRecord & { activations: ActivationRecord[]; expiry: ExpiryTerms };

/** What the reads of a license run on. */
export interface LicenseReadDeps {
  licenses: Pick<LicenseStore, 'findByKey' | 'findWithActivations' | 'releaseLapsed'>;
  products: ProductLookup;
  events: Pick<LicenseEvents, 'activationDeleted'>;
  plans: Pick<PlanLookup, 'planOf'>;
}

/** A license, its activations and its product, as the handlers read them to decide. */
export interface LicenseReads {
  /**
   * Removes the activations of a license whose lease ran out at `now`: gone for every rule at
   * once (docs/api-decisions.md, "Leases"), each an `activation.deleted` event. The license after,
   * or null when unknown.
   */
  releaseLapsed(licenseKey: string, now: Date): Promise<LapsedRelease | null>;
  /**
   * A license as the rules decide on it at `now`: with its activations under the keys an
   * identifier has (rules.ts `identifierKeysByType`), read together with it; on a license with a
   * lease, after its lapsed activations are removed. A caller that stopped waiting writes
   * nothing: a lapsed activation is then left out of the view instead.
   */
  licenseWithActivations(
    licenseKey: string,
    identifier: string | null,
    now: Date,
    context?: CallContext,
  ): Promise<LicenseView | null>;
  /**
   * A license as the rules decide on it at `now`, with its activations under the keys an
   * identifier has, the lapsed ones left out of the view: a read for the answers that decide
   * nothing about the license (the update check's and the download's coverage), which writes
   * nothing. The lease task and the paths that change a license remove lapsed activations.
   */
  licenseAsRead(
    licenseKey: string,
    identifier: string | null,
    now: Date,
  ): Promise<LicenseView | null>;
  /** The license with this key; refused (NOT_FOUND) when there is none. */
  requireLicense(licenseKey: string): Promise<LicenseRecord>;
  /** The product a license belongs to: it must exist, so its absence is a server fault. */
  productOf(license: LicenseRecord): Promise<LicensedProduct>;
  /** The expiry terms of the license's plan, as they are now. */
  expiryOf(license: Pick<LicenseRecord, 'plan_id'>): Promise<ExpiryTerms>;
}

export function licenseReads({ licenses, products, events, plans }: LicenseReadDeps): LicenseReads {
  const expiryOf = async (license: Pick<LicenseRecord, 'plan_id'>) =>
    expiryTermsOf(await plans.planOf(license.plan_id));

  async function releaseLapsed(licenseKey: string, now: Date): Promise<LapsedRelease | null> {
    const lapsed = await licenses.releaseLapsed({ licenseKey, now });
    announceLapsed(events, lapsed, now);
    return lapsed;
  }

  async function readWithActivations(licenseKey: string, identifier: string | null) {
    return licenses.findWithActivations({
      licenseKey,
      identifierKeys: identifier === null ? [] : Object.values(identifierKeysByType(identifier)),
    });
  }

  const lapsesAt = (now: Date) => (a: ActivationRecord) =>
    a.lease_expires_at !== null && a.lease_expires_at.getTime() <= now.getTime();

  /** The license as read, its lapsed activations left out of the view (nothing written). */
  const withoutLapsed = async (
    found: { license: LicenseRecord; activations: ActivationRecord[] },
    now: Date,
  ): Promise<LicenseView> => {
    const lapses = lapsesAt(now);
    return {
      ...found.license,
      activations: found.activations.filter((a) => !lapses(a)),
      expiry: await expiryOf(found.license),
    };
  };

  async function licenseAsRead(
    licenseKey: string,
    identifier: string | null,
    now: Date,
  ): Promise<LicenseView | null> {
    const found = await readWithActivations(licenseKey, identifier);
    return found && (await withoutLapsed(found, now));
  }

  async function licenseWithActivations(
    licenseKey: string,
    identifier: string | null,
    now: Date,
    context?: CallContext,
  ): Promise<LicenseView | null> {
    const found = await readWithActivations(licenseKey, identifier);
    if (!found) return null;
    const lapses = lapsesAt(now);
    if (found.license.lease_seconds === null && !found.activations.some(lapses)) {
      return {
        ...found.license,
        activations: found.activations,
        expiry: await expiryOf(found.license),
      };
    }
    if (context?.passed) return withoutLapsed(found, now);
    // The license after the removal; of the activations read, those it did not remove.
    const lapsed = await releaseLapsed(licenseKey, now);
    const removed = new Set(lapsed?.released.map((a) => a.identifier_key));
    const license = lapsed?.license ?? found.license;
    return {
      ...license,
      activations: found.activations.filter((a) => !removed.has(a.identifier_key)),
      expiry: await expiryOf(license),
    };
  }

  async function requireLicense(licenseKey: string): Promise<LicenseRecord> {
    const license = await licenses.findByKey(licenseKey);
    if (!license) throw LicensingError.from(unknownLicense());
    return license;
  }

  async function productOf(license: LicenseRecord): Promise<LicensedProduct> {
    const product = await products.find(license.product_id);
    if (product) return product;
    throw internalError(`The product ${license.product_id} of this license is missing.`);
  }

  return {
    releaseLapsed,
    licenseWithActivations,
    licenseAsRead,
    requireLicense,
    productOf,
    expiryOf,
  };
}
