import { randomBytes } from 'node:crypto';
import {
  LicensingError,
  internalError,
  refusal,
  type HandlersOf,
} from '../../../libs/contracts/index.js';
import type { LicenseEvents } from '../events.js';
import type { LicenseChanges, LicenseStore, LicenseUpdate } from '../licenses/license-store.js';
import { extendedExpiry, licenseChanges } from '../lifecycle/lifecycle-rules.js';
import type { LicenseRecord } from '../records.js';
import { limitBelowActivations, unknownLicense } from '../rules.js';
import type { ClaimActivation } from '../use-cases/claim-activation.js';
import type { DetailOf } from '../use-cases/license-detail.js';
import type { LicenseReads } from '../use-cases/license-reads.js';
import { customerOrRefuse, type LicenseToIssue } from '../use-cases/license-to-issue.js';
import type { ReleaseActivation } from '../use-cases/release-activation.js';
import { activationView } from '../record-views.js';

/**
 * How many times an extension of the expiry is decided again when the expiry moved between its
 * read and its write (a renewal meanwhile): more would mean something keeps changing it.
 */
const EXTENSION_ROUNDS = 3;

/** 128 random bits: license keys are credentials (spec 5.1) and must not be guessable. */
export function generateLicenseKey(): string {
  return randomBytes(16).toString('hex');
}

/** What an admin's calls on a license run on. */
export interface AdminHandlerDeps {
  licenses: Pick<LicenseStore, 'issue' | 'update'>;
  clock: () => Date;
  events: Pick<LicenseEvents, 'licenseCreated' | 'licenseUpdated'>;
  toIssue: LicenseToIssue;
  reads: Pick<LicenseReads, 'requireLicense' | 'licenseWithActivations'>;
  claimActivation: ClaimActivation;
  releaseActivation: ReleaseActivation;
  detail: DetailOf;
}

/**
 * What an admin does with a license: issues, reads and changes it, and adds and removes its
 * activations (spec 3.2, Add and Remove).
 */
export function adminHandlers({
  licenses,
  clock,
  events,
  toIssue,
  reads: { requireLicense, licenseWithActivations },
  claimActivation,
  releaseActivation,
  detail,
}: AdminHandlerDeps): Pick<
  HandlersOf<'license'>,
  | 'license.createLicense'
  | 'license.getLicense'
  | 'license.updateLicense'
  | 'license.addActivation'
  | 'license.removeActivation'
> {
  return {
    // ---- Licenses (admin) ----
    'license.createLicense': async (request, context) => {
      const license = await toIssue({
        ...request,
        license_key: request.license_key ?? generateLicenseKey(),
      });
      context.beforeWrite();
      const now = clock();
      const issued = await licenses.issue({ now, license });
      if (issued.outcome === 'key-taken') {
        throw LicensingError.from(
          refusal('ALREADY_EXISTS', 'A license with this key already exists.'),
        );
      }
      events.licenseCreated({ license: issued.license, at: now });
      return detail(issued.license);
    },

    'license.getLicense': async ({ license_key }) => detail(await requireLicense(license_key)),

    'license.updateLicense': async (
      {
        license_key,
        status,
        expires_at,
        activation_limit,
        customer,
        metadata,
        auto_renew,
        next_payment_at,
        extend_expiry_days: days,
      },
      context,
    ) => {
      const changes: LicenseChanges = { status, activation_limit, metadata, auto_renew };
      if (next_payment_at !== undefined) {
        changes.next_payment_at = next_payment_at === null ? null : new Date(next_payment_at);
      }
      if (expires_at !== undefined) {
        changes.expires_at = expires_at === null ? null : new Date(expires_at);
      }
      if (customer !== undefined) changes.customer = customerOrRefuse(customer);
      if (days !== undefined && expires_at !== undefined) {
        throw LicensingError.from(
          refusal('INVALID_REQUEST', 'Send expires_at or extend_expiry_days, not both.'),
        );
      }
      let updated: LicenseUpdate = { outcome: 'changed-meanwhile' };
      let now = clock();
      for (
        let round = 0;
        round < EXTENSION_ROUNDS && updated.outcome === 'changed-meanwhile';
        round++
      ) {
        // An extension is decided on the expiry read, and written only while it is still that.
        let expected: Pick<LicenseRecord, 'expires_at'> | undefined;
        if (days !== undefined) {
          const current = await requireLicense(license_key);
          const extended = extendedExpiry(current.expires_at, days);
          if (!extended.ok) throw LicensingError.from(extended.refusal);
          changes.expires_at = extended.expiresAt;
          expected = { expires_at: current.expires_at };
        }
        // Spec 3.3: a limit below the activations in use is refused, atomically, with the rest.
        context.beforeWrite();
        now = clock();
        updated = await licenses.update({ licenseKey: license_key, changes, now, expected });
      }
      switch (updated.outcome) {
        case 'updated': {
          // An update that leaves every field as it was is no change, and no event; nor is a
          // change of the customer or metadata, which events never carry (spec 2.2).
          const changed = licenseChanges(updated.previous, updated.license);
          if (changed) {
            events.licenseUpdated({ license: updated.license, changes: changed, at: now });
          }
          return detail(updated.license);
        }
        case 'unknown-license':
          throw LicensingError.from(unknownLicense());
        case 'limit-below-activations':
          throw LicensingError.from(limitBelowActivations(updated));
        case 'changed-meanwhile':
          throw internalError('The expiry kept changing while it was extended; try again.');
      }
    },

    // ---- Spec 3.2: Add and Remove in admin ----
    'license.addActivation': async ({ license_key, identifier, name }, context) => {
      await requireLicense(license_key);
      // Refused for a full or expired license, it is recorded as the activate call's refusal is.
      const result = await claimActivation({
        licenseKey: license_key,
        request: { identifier, name, product_id: null, ip: '' },
        source: 'admin',
        context,
      });
      if (!result.ok) throw LicensingError.from(result.refusal);
      if (result.outcome === 'already-active') {
        throw LicensingError.from(
          refusal('ACTIVATION_EXISTS', 'This identifier is already activated on this license.'),
        );
      }
      return {
        license: await detail(result.license),
        activation: activationView(result.activation),
      };
    },

    'license.removeActivation': async ({ license_key, identifier }, context) => {
      const license = await licenseWithActivations(license_key, identifier, clock(), context);
      if (!license) throw LicensingError.from(unknownLicense());
      const removed = await releaseActivation({
        license,
        product: null,
        request: { identifier, product_id: null },
        context,
        source: 'admin',
      });
      return detail(removed.license);
    },
  };
}
