import { z } from 'zod';
import { ActivationType, Id, LicenseStatus, Timestamp } from '../shared.js';
import { Activation } from './license-views.js';
import { LicenseUsage } from './usage.js';
import { ExpiryStanding } from './license-operations.js';

/**
 * The customer portal's view of a license (spec 1, 2.3): read-only, for its holder. No IP
 * addresses of activations, no rejected attempts, no check fields.
 */
export const PortalLicense = z.object({
  license_key: z.string(),
  status: LicenseStatus,
  product: z.string(),
  plan: z.string(),
  activation_type: ActivationType,
  activation_limit: z.number().int().nonnegative(),
  activations_used: z.number().int().nonnegative(),
  expires_at: Timestamp.nullable(),
  auto_renew: z.boolean(),
  next_payment_at: Timestamp.nullable(),
  /** The products the key can be used with: the bundle's products, or the one product. */
  products: z.array(z.object({ id: Id, title: z.string() })),
  activations: z.array(Activation.omit({ ip: true, last_checkout_at: true })),
  /** Whether its activations lapse unless in use (the portal says they renew while in use). */
  lease_seconds: z.number().int().positive().nullable(),
  /** Its usage counter, only when its plan counts usage (docs/api-decisions.md). */
  usage: LicenseUsage.optional(),
  /** What its plan's expiry terms give it (docs/api-decisions.md, "Expiry strategies"). */
  ...ExpiryStanding.shape,
});
export type PortalLicense = z.infer<typeof PortalLicense>;
