import type {
  Activation,
  LicenseDetail,
  LicenseSummary,
  PortalLicense,
  ScheduledTask,
  TaskName,
} from '../../libs/contracts/index.js';
import { effectiveStatus, type LicensedProduct } from './rules.js';
import { expiryStanding, type ExpiringLicense } from './lifecycle/expiry-rules.js';
import type {
  ActivationRecord,
  LicenseEntitlementRecord,
  LicenseRecord,
  RejectedAttemptRecord,
  TaskRunRecord,
} from './records.js';
import { iso, licenseEntitlementView } from './views.js';

/**
 * The views of a license beyond the answers of the public calls (views.ts): the admin's lists
 * and detail, the customer portal's page, the scheduled tasks.
 */

/** A license in a list: every field of spec 2.2 and the record's links, no activations. */
export function licenseSummaryView({
  license,
  product,
  planName,
  pendingPlanName,
  now,
}: {
  license: LicenseRecord;
  product: LicensedProduct | null;
  planName: string | null;
  /** The name of the pending plan change's plan, when there is one. */
  pendingPlanName: string | null;
  now: Date;
}): LicenseSummary {
  return {
    license_key: license.license_key,
    status: effectiveStatus(license, now),
    product_id: license.product_id,
    plan_id: license.plan_id,
    product: product?.title ?? null,
    plan: planName,
    activation_type: license.activation_type,
    activation_limit: license.activation_limit,
    activations_used: license.activations_used,
    lease_seconds: license.lease_seconds,
    exempt_identifiers: [...license.exempt_identifiers],
    exempt_limit: license.exempt_limit,
    exempt_used: license.exempt_used,
    expires_at: iso(license.expires_at),
    auto_renew: license.auto_renew,
    next_payment_at: iso(license.next_payment_at),
    last_check_at: iso(license.last_check_at),
    last_check_ip: license.last_check_ip,
    check_count: license.check_count,
    created_at: license.created_at.toISOString(),
    pending_plan:
      license.pending_plan_id === null
        ? null
        : { id: license.pending_plan_id, name: pendingPlanName },
    customer: license.customer && { email: license.customer.email, name: license.customer.name },
    metadata: { ...license.metadata },
    store: license.store && { ...license.store },
    imported_from: license.imported_from ? { ...license.imported_from } : null,
  };
}

/** An activation as the admin API shows it. */
export function activationView(activation: ActivationRecord): Activation {
  return {
    identifier: activation.identifier,
    name: activation.name,
    ip: activation.ip,
    activated_at: activation.activated_at.toISOString(),
    last_checkout_at: iso(activation.last_checkout_at),
    lease_expires_at: iso(activation.lease_expires_at),
    exempt: activation.exempt,
  };
}

export function licenseDetailView({
  activations,
  rejectedAttempts,
  entitlements,
  ...summary
}: Parameters<typeof licenseSummaryView>[0] & {
  /** The first of its activations (DETAIL_ACTIVATIONS), oldest first. */
  activations: ActivationRecord[];
  rejectedAttempts: RejectedAttemptRecord[];
  /** The entitlements it carries beyond its plan's. */
  entitlements: LicenseEntitlementRecord[];
}): LicenseDetail {
  return {
    ...licenseSummaryView(summary),
    activations: activations.map(activationView),
    rejected_attempts: rejectedAttempts.map((r) => ({
      identifier: r.identifier,
      name: r.name,
      reason: r.reason,
      source: r.source,
      tries: r.tries,
      last_attempt_at: r.last_attempt_at.toISOString(),
    })),
    entitlements: entitlements.map(licenseEntitlementView),
  };
}

/**
 * Spec 1 and 2.3: the customer portal's read-only view. Activations without their IP address;
 * `products` are the products the key can be used with (spec 2.2).
 */
export function portalLicenseView({
  license,
  activations,
  product,
  planName,
  products,
  now,
}: {
  /** With its plan's expiry terms. */
  license: LicenseRecord & ExpiringLicense;
  /** The first of its activations (DETAIL_ACTIVATIONS), oldest first. */
  activations: ActivationRecord[];
  product: LicensedProduct;
  planName: string;
  products: ReadonlyArray<{ id: number; title: string }>;
  now: Date;
}): PortalLicense {
  const standing = expiryStanding(license, now);
  return {
    license_key: license.license_key,
    status: standing.status,
    product: product.title,
    plan: planName,
    activation_type: license.activation_type,
    activation_limit: license.activation_limit,
    activations_used: license.activations_used,
    expires_at: iso(license.expires_at),
    auto_renew: license.auto_renew,
    next_payment_at: iso(license.next_payment_at),
    products: products.map(({ id, title }) => ({ id, title })),
    activations: activations.map((a) => ({
      identifier: a.identifier,
      name: a.name,
      activated_at: a.activated_at.toISOString(),
      lease_expires_at: iso(a.lease_expires_at),
      exempt: a.exempt,
    })),
    lease_seconds: license.lease_seconds,
    in_grace: standing.in_grace,
    grace_ends_at: iso(standing.grace_ends_at),
    updates_until: iso(standing.updates_until),
  };
}

/** A scheduled task as listed: its interval here, its last run and its next scheduled run. */
export function scheduledTaskView({
  name,
  interval,
  lastRun,
  nextRunAt,
}: {
  name: TaskName;
  interval: string;
  lastRun: TaskRunRecord | null;
  nextRunAt: Date | null;
}): ScheduledTask {
  return {
    name,
    interval,
    last_run: lastRun && {
      ran_at: lastRun.ran_at.toISOString(),
      trigger: lastRun.trigger,
      affected: lastRun.affected,
      error: lastRun.error,
    },
    next_run_at: iso(nextRunAt),
  };
}
