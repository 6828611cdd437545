import { LicensingError, type CallContext } from '../../../libs/contracts/index.js';
import { decideDeactivation } from '../activations/activation-rules.js';
import type { ActivationRemovalSource, LicenseEvents } from '../events.js';
import type { LicenseStore } from '../licenses/license-store.js';
import type { LicenseRecord } from '../records.js';
import { activationNotFound, findActivation, type LicensedProduct } from '../rules.js';
import type { LicenseView } from './license-reads.js';

/** What releasing an activation runs on. */
export interface ReleaseActivationDeps {
  licenses: Pick<LicenseStore, 'releaseSlot'>;
  events: Pick<LicenseEvents, 'activationDeleted'>;
  clock: () => Date;
}

/** An activation to remove, on the license read with it (license-reads.ts). */
export interface ActivationRelease {
  license: LicenseView | null;
  product: LicensedProduct | null;
  request: { identifier: string; product_id: number | null };
  context: CallContext;
  /** Who removes it: the client's deactivate or an admin's Remove. */
  source: Exclude<ActivationRemovalSource, 'lease'>;
}

export type ReleaseActivation = (
  release: ActivationRelease,
) => Promise<{ license: LicenseRecord; identifier: string }>;

/**
 * Frees a slot (spec 3.2: deactivate, and Remove in admin), an `activation.deleted` event; refused
 * as decided (activations/activation-rules.ts `decideDeactivation`), or when a concurrent call
 * removed it.
 */
export function releaseActivation({
  licenses,
  events,
  clock,
}: ReleaseActivationDeps): ReleaseActivation {
  return async ({ license, product, request, context, source }) => {
    const decision = decideDeactivation({ license, product, request });
    if (!decision.ok) throw LicensingError.from(decision.refusal);
    const activation = findActivation(license!.activations, decision.identifier.key)!;
    const now = clock();
    context.beforeWrite();
    const released = await licenses.releaseSlot({
      now,
      licenseKey: license!.license_key,
      activation,
    });
    // Removed by a concurrent call since the read.
    if (!released) throw LicensingError.from(activationNotFound());
    events.activationDeleted({
      license: released.license,
      activation: released.released,
      source,
      at: now,
    });
    return { license: released.license, identifier: released.released.identifier };
  };
}
