import { z } from 'zod';
import { ClientIp, Id, NonEmptyShortText, ShortText, Timestamp } from '../shared.js';
import { LicenseKey } from './license-key.js';
import { MAX_USAGE_INCREMENT, MAX_USES_LIMIT } from '../bounds.js';

// ---- Usage counters (docs/api-decisions.md, "Usage counters") ----

/** When a plan's usage counter starts again from 0: never, or at each UTC day or month. */
export const usesResets = ['never', 'daily', 'monthly'] as const;
export const UsesReset = z.enum(usesResets).meta({
  description:
    'When the usage counter starts again from 0: never, at each midnight UTC (daily), or at ' +
    'the first of each month, midnight UTC (monthly).',
});
export type UsesReset = z.infer<typeof UsesReset>;

/** A plan's usage cap; null: the plan counts no usage. */
export const MaxUses = z
  .number()
  .int()
  .positive()
  .max(MAX_USES_LIMIT)
  .nullable()
  .meta({
    description:
      'How many uses a license of this plan may record in a period (`uses_reset`); null: the ' +
      `plan counts no usage. At most ${MAX_USES_LIMIT}.`,
  });

/** A use recorded by client software (`POST {api_base}/licenses/usage`). */
export const RecordUsageRequest = z.strictObject({
  license_key: LicenseKey,
  product_id: Id,
  /** When sent, it must be activated on the license. */
  identifier: ShortText.nullable(),
  increment: z.number().int().positive().max(MAX_USAGE_INCREMENT),
  /** The same key twice on one license counts once. */
  idempotency_key: NonEmptyShortText,
  ip: ClientIp,
});
export type RecordUsageRequest = z.infer<typeof RecordUsageRequest>;

/** A license's usage counter in its current period. */
export const UsageResult = z.object({
  uses: z.number().int().nonnegative(),
  max_uses: z.number().int().positive(),
  /** When the counter starts again from 0; null when the plan's counter never resets. */
  resets_at: Timestamp.nullable(),
});
export type UsageResult = z.infer<typeof UsageResult>;

/** A license's usage as the admin and the portal see it; null fields when its plan counts none. */
export const LicenseUsage = z.object({
  uses: z.number().int().nonnegative(),
  max_uses: z.number().int().positive().nullable(),
  uses_reset: UsesReset,
  resets_at: Timestamp.nullable(),
});
export type LicenseUsage = z.infer<typeof LicenseUsage>;

/** The fields USAGE_LIMIT_REACHED carries beside `code` and `message`. */
export const UsageLimitDetails = z.object({
  uses: z.number().int().nonnegative().optional().meta({
    description: 'USAGE_LIMIT_REACHED: the uses of the period, before the refused increment.',
  }),
  max_uses: z.number().int().positive().optional().meta({
    description: "USAGE_LIMIT_REACHED: the plan's cap.",
  }),
});
