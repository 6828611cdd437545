import { z } from 'zod';
import {
  ClientIp,
  DEFAULT_PER_PAGE,
  Id,
  MAX_PAGE,
  MAX_PER_PAGE,
  NonEmptyShortText,
  ShortText,
  Timestamp,
} from '../shared.js';

/**
 * Server-verified trials (docs/api-decisions.md, "Trials"): a license issued on the trial plan a
 * product names, with the identifier activated on it, once per identifier and product ever.
 */

/** `POST {api_base}/trials`, as the gateway passes it on. */
export const StartTrialRequest = z.strictObject({
  product_id: Id,
  identifier: NonEmptyShortText,
  /** The buyer's address, kept as the license's customer; null when none was sent. */
  email: ShortText.nullable(),
  ip: ClientIp,
});
export type StartTrialRequest = z.infer<typeof StartTrialRequest>;

/** What a trial started answers: no customer data, only the key, its expiry and the activation. */
export const StartedTrial = z.object({
  license_key: z.string(),
  product_id: Id,
  expires_at: Timestamp,
  activation: z.object({
    identifier: z.string().meta({
      description: "The identifier as activated: normalised for the plan's activation type.",
    }),
    activated_at: Timestamp,
  }),
});
export type StartedTrial = z.infer<typeof StartedTrial>;

/** A trial as an admin sees it. */
export const Trial = z.object({
  product_id: Id,
  identifier: z.string(),
  license_key: z.string(),
  started_at: Timestamp,
  expires_at: Timestamp,
  /** When a paid license activated on the identifier ended it; null while it has not. */
  converted_at: Timestamp.nullable(),
  converted_license_key: z.string().nullable(),
});
export type Trial = z.infer<typeof Trial>;

/** The admin's list of trials, newest first. */
export const ListTrialsRequest = z.strictObject({
  product_id: Id.nullable().default(null),
  converted: z.boolean().nullable().default(null),
  page: z.number().int().positive().max(MAX_PAGE).default(1),
  per_page: z.number().int().positive().max(MAX_PER_PAGE).default(DEFAULT_PER_PAGE),
});
export type ListTrialsRequest = z.infer<typeof ListTrialsRequest>;

export const TrialPage = z.object({
  trials: z.array(Trial),
  page: z.number().int().positive(),
  per_page: z.number().int().positive(),
  total: z.number().int().nonnegative(),
});
export type TrialPage = z.infer<typeof TrialPage>;
