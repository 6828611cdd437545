import { LicensingError, refusal, type HandlersOf } from '../../../libs/contracts/index.js';
import type { EntitlementStore } from './entitlement-store.js';
import {
  entitlementInUse,
  undefinedCodes,
  undefinedEntitlements,
  unknownEntitlement,
} from './entitlement-rules.js';
import type { PlanStore } from '../stores.js';
import type { DetailOf } from '../use-cases/license-detail.js';
import type { LicenseReads } from '../use-cases/license-reads.js';
import { entitlementView } from '../views.js';

/** What an admin's calls on entitlements run on. */
export interface EntitlementHandlerDeps {
  entitlements: EntitlementStore;
  plans: Pick<PlanStore, 'list'>;
  reads: Pick<LicenseReads, 'requireLicense'>;
  detail: DetailOf;
  clock: () => Date;
}

/**
 * Refuses a set of codes of which some are not defined (docs/api-decisions.md, "Entitlements"):
 * a plan or a license cannot grant what does not exist.
 */
export async function refuseUndefinedCodes(
  entitlements: Pick<EntitlementStore, 'defined'>,
  codes: readonly string[],
): Promise<void> {
  const missing = undefinedCodes(codes, await entitlements.defined(codes));
  if (missing.length > 0) throw LicensingError.from(undefinedEntitlements(missing));
}

/** What an admin does with entitlements, and with those a license carries beyond its plan's. */
export function entitlementHandlers({
  entitlements,
  plans,
  reads,
  detail,
  clock,
}: EntitlementHandlerDeps): Pick<
  HandlersOf<'license'>,
  | 'license.createEntitlement'
  | 'license.getEntitlement'
  | 'license.listEntitlements'
  | 'license.updateEntitlement'
  | 'license.deleteEntitlement'
  | 'license.grantEntitlement'
  | 'license.revokeEntitlement'
> {
  return {
    'license.createEntitlement': async (entitlement, context) => {
      context.beforeWrite();
      const created = await entitlements.create({ entitlement, now: clock() });
      if (created.outcome === 'code-taken') {
        const message = `Entitlement ${entitlement.code} already exists.`;
        throw LicensingError.from(refusal('ALREADY_EXISTS', message));
      }
      return entitlementView(created.entitlement);
    },

    'license.getEntitlement': async ({ code }) => {
      const found = await entitlements.find(code);
      if (!found) throw LicensingError.from(unknownEntitlement(code));
      return entitlementView(found);
    },

    'license.listEntitlements': async () => ({
      entitlements: (await entitlements.list()).map(entitlementView),
    }),

    'license.updateEntitlement': async ({ code, name }, context) => {
      context.beforeWrite();
      const renamed = await entitlements.rename({ code, name });
      if (!renamed) throw LicensingError.from(unknownEntitlement(code));
      return entitlementView(renamed);
    },

    'license.deleteEntitlement': async ({ code }, context) => {
      const found = await entitlements.find(code);
      if (!found) throw LicensingError.from(unknownEntitlement(code));
      const [allPlans, licenses] = await Promise.all([
        plans.list(),
        entitlements.licensesWith(code),
      ]);
      const use = { plans: allPlans.filter((p) => p.entitlements.includes(code)).length, licenses };
      const inUse = entitlementInUse(code, use);
      if (inUse) throw LicensingError.from(inUse);
      context.beforeWrite();
      const removed = await entitlements.remove(code);
      if (!removed) throw LicensingError.from(unknownEntitlement(code));
      return entitlementView(removed);
    },

    'license.grantEntitlement': async ({ license_key, code, expires_at }, context) => {
      const license = await reads.requireLicense(license_key);
      await refuseUndefinedCodes(entitlements, [code]);
      context.beforeWrite();
      await entitlements.grant({
        licenseKey: license.license_key,
        code,
        expiresAt: expires_at === null ? null : new Date(expires_at),
        now: clock(),
      });
      return detail(license);
    },

    'license.revokeEntitlement': async ({ license_key, code }, context) => {
      const license = await reads.requireLicense(license_key);
      context.beforeWrite();
      const revoked = await entitlements.revoke({ licenseKey: license.license_key, code });
      if (!revoked) {
        const message = `License does not carry entitlement ${code} of its own.`;
        throw LicensingError.from(refusal('NOT_FOUND', message));
      }
      return detail(license);
    },
  };
}
