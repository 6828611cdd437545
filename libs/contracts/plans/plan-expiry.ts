import { z } from 'zod';

// ---- A plan's expiry terms (docs/api-decisions.md, "Expiry strategies") ----

export const expiryStrategies = ['revoke', 'maintain', 'restrict'] as const;
export const renewalBases = ['from_expiry', 'from_now', 'from_now_if_expired'] as const;

export const ExpiryStrategy = z.enum(expiryStrategies).meta({
  description:
    'What a license of the plan keeps past its expiry (and its grace): `revoke`, nothing (spec ' +
    '3.1 and 4.5); `maintain`, it stays valid and gets the versions released on or before its ' +
    'expiry; `restrict`, as maintain, but new activations are refused with LICENSE_EXPIRED.',
});
export type ExpiryStrategy = z.infer<typeof ExpiryStrategy>;

export const GraceDays = z
  .number()
  .int()
  .nonnegative()
  .max(3650)
  .meta({
    description:
      'Days after its expiry during which a license still answers as active (`in_grace`); ' +
      'then its expiry strategy applies.',
  });

export const RenewalBasis = z.enum(renewalBases).meta({
  description:
    'Where a renewal counts the new expiry from: `from_expiry`, the old expiry; `from_now`, the ' +
    'renewal; `from_now_if_expired`, the renewal when the license has expired, else the old expiry.',
});
export type RenewalBasis = z.infer<typeof RenewalBasis>;

/** The terms as a plan answers them; plans stored without them read as the defaults. */
export const planExpiryFields = {
  expiry_strategy: ExpiryStrategy,
  grace_days: GraceDays,
  renewal_basis: RenewalBasis,
};

/** What a plan that says nothing of them has: the spec's own rules. */
export const defaultExpiryTerms = {
  expiry_strategy: 'revoke',
  grace_days: 0,
  renewal_basis: 'from_expiry',
} as const satisfies {
  [K in keyof typeof planExpiryFields]: z.infer<(typeof planExpiryFields)[K]>;
};

export const createPlanExpiryFields = {
  expiry_strategy: ExpiryStrategy.default(defaultExpiryTerms.expiry_strategy),
  grace_days: GraceDays.default(defaultExpiryTerms.grace_days),
  renewal_basis: RenewalBasis.default(defaultExpiryTerms.renewal_basis),
};

export const updatePlanExpiryFields = {
  expiry_strategy: ExpiryStrategy.optional(),
  grace_days: GraceDays.optional(),
  renewal_basis: RenewalBasis.optional(),
};

/** A plan's expiry terms, as the license rules read them (live, per request). */
export interface ExpiryTerms {
  expiry_strategy: ExpiryStrategy;
  grace_days: number;
  renewal_basis: RenewalBasis;
}
