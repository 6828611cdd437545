import { z } from 'zod';
import { IdText, MAX_USAGE_INCREMENT } from '../../../libs/contracts/index.js';
import {
  OptionalText,
  RequiredText,
  SAME_KEYS,
  Text,
  licenseKeyFields,
  oneKey,
  sameKeys,
} from '../requests/inputs.js';

/**
 * A use recorded on a license (docs/api-decisions.md, "Usage counters"): the key, the product
 * (required, as for a license file), an optional activated identifier, how many uses, and the
 * key that makes a repeated call count once.
 */
export const UsageForm = z
  .object({
    ...licenseKeyFields,
    product_id: RequiredText.pipe(IdText).meta({
      description: 'The product used; a key that does not cover it gets PRODUCT_MISMATCH.',
    }),
    identifier: OptionalText.meta({
      description:
        'An identifier activated on the license, normalised as on activation; optional, but ' +
        'one that is sent must be activated (ACTIVATION_NOT_FOUND).',
    }),
    increment: OptionalText.pipe(
      IdText.pipe(
        z.number().max(MAX_USAGE_INCREMENT, `must be at most ${MAX_USAGE_INCREMENT}`),
      ).optional(),
    ).meta({
      description: `How many uses to add: a positive integer, at most ${MAX_USAGE_INCREMENT}; default 1.`,
    }),
    idempotency_key: Text.refine((value) => value.trim() !== '', 'is required').meta({
      description:
        'Chosen by the client for this use (a UUID): a call sent again with the same key on the ' +
        'same license counts once, and is answered with the uses as they are then.',
    }),
  })
  .refine(sameKeys, SAME_KEYS)
  .transform((fields, ctx) => ({
    license_key: oneKey(fields, ctx),
    product_id: fields.product_id,
    identifier: fields.identifier ?? null,
    increment: fields.increment ?? 1,
    idempotency_key: fields.idempotency_key,
  }));
