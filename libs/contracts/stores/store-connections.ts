import { z } from 'zod';
import { Id, NonEmptyShortText, Timestamp } from '../shared.js';

// ---- Store connections (docs/stores.md): the stores whose sales become licenses ----

/** The stores a connection can receive events from. */
export const storeProviders = ['stripe', 'paddle', 'lemonsqueezy', 'woocommerce'] as const;
export const StoreProvider = z.enum(storeProviders);
export type StoreProvider = z.infer<typeof StoreProvider>;

/** A store's test or live mode: a connection receives the events of one. */
export const StoreMode = z.enum(['test', 'live']);
export type StoreMode = z.infer<typeof StoreMode>;

/**
 * A store's webhook signing secret as the admin pastes it: printable ASCII, no spaces (every
 * store issues such secrets; a stray newline from a copy is refused rather than kept).
 */
export const SigningSecret = z
  .string()
  .min(8)
  .max(512)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

/**
 * How far the timestamp of a signed event (Stripe, Paddle) may be from the service's clock, either
 * way: the time a delivery takes and the clock skew allowed, a store's clock running ahead of this
 * one. Older or newer signatures are refused as stale, which bounds the replay of a captured
 * delivery.
 */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The largest event body a store connection accepts: stores send a few kilobytes. */
export const MAX_STORE_EVENT_BYTES = 512 * 1024;

/** How long a replaced signing secret still verifies: the store may deliver with either meanwhile. */
export const PREVIOUS_SECRET_HOURS = 24;

/** A store's API key, used only to read what an event leaves out (a Stripe Checkout Session's items). */
export const StoreApiKey = SigningSecret;

/** Which moments of a store-made license the buyer is e-mailed about (docs/stores.md). */
export const StoreEmails = z.strictObject({
  created: z.boolean().default(true),
  renewed: z.boolean().default(true),
  suspended: z.boolean().default(true),
  cancelled: z.boolean().default(true),
});
export type StoreEmails = z.infer<typeof StoreEmails>;

/** Days a subscription may stay past due before its license is suspended. */
export const GraceDays = z.number().int().nonnegative().max(60);

export const CreateStoreConnectionRequest = z.strictObject({
  name: NonEmptyShortText,
  provider: StoreProvider,
  mode: StoreMode,
  /** The store's webhook signing secret; stored, never answered again. */
  signing_secret: SigningSecret,
  /** Optional: lets the service read from the store's API what an event leaves out (Stripe). */
  api_key: StoreApiKey.nullable().default(null),
  grace_days: GraceDays.default(3),
  emails: StoreEmails.default({ created: true, renewed: true, suspended: true, cancelled: true }),
});
export type CreateStoreConnectionRequest = z.infer<typeof CreateStoreConnectionRequest>;

/**
 * Any of a connection's settings. A new `signing_secret` replaces the current one, which keeps
 * verifying for PREVIOUS_SECRET_HOURS (a rotation: the store may still sign with it meanwhile).
 */
export const UpdateStoreConnectionRequest = z.strictObject({
  id: Id,
  name: NonEmptyShortText.optional(),
  mode: StoreMode.optional(),
  signing_secret: SigningSecret.optional(),
  api_key: StoreApiKey.nullable().optional(),
  grace_days: GraceDays.optional(),
  emails: StoreEmails.partial().optional(),
});
export type UpdateStoreConnectionRequest = z.infer<typeof UpdateStoreConnectionRequest>;

export const StoreConnectionRef = z.strictObject({ id: Id });
export type StoreConnectionRef = z.infer<typeof StoreConnectionRef>;

/** A connection as it is answered: never its secrets, only whether they are set. */
export const StoreConnection = z.object({
  id: Id,
  name: z.string(),
  provider: StoreProvider,
  mode: StoreMode,
  grace_days: z.number().int(),
  emails: z.object({
    created: z.boolean(),
    renewed: z.boolean(),
    suspended: z.boolean(),
    cancelled: z.boolean(),
  }),
  api_key_set: z.boolean(),
  /** When the signing secret was last replaced; the one before verifies until 24 hours later. */
  secret_rotated_at: Timestamp.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type StoreConnection = z.infer<typeof StoreConnection>;

export const StoreConnectionList = z.object({ connections: z.array(StoreConnection) });
export type StoreConnectionList = z.infer<typeof StoreConnectionList>;

// ---- Product mappings: what a store's price, variant or product id sells ----

/** The store's price, variant or product id, as its events carry it. */
export const ExternalId = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

/** How a subscription's renewal reaches the license (spec 3.3). */
export const StoreRenewal = z.enum(['gateway', 'checkout']);

export const CreateStoreMappingRequest = z.strictObject({
  connection_id: Id,
  external_id: ExternalId,
  product_id: Id,
  plan_id: Id,
  renewal: StoreRenewal.default('gateway'),
  /** How long a one-off order's license runs; null: it does not expire. */
  duration_days: z.number().int().positive().max(36_500).nullable().default(null),
});
export type CreateStoreMappingRequest = z.infer<typeof CreateStoreMappingRequest>;

export const UpdateStoreMappingRequest = z.strictObject({
  id: Id,
  product_id: Id.optional(),
  plan_id: Id.optional(),
  renewal: StoreRenewal.optional(),
  duration_days: z.number().int().positive().max(36_500).nullable().optional(),
});
export type UpdateStoreMappingRequest = z.infer<typeof UpdateStoreMappingRequest>;

export const StoreMappingRef = z.strictObject({ id: Id });

export const StoreMapping = z.object({
  id: Id,
  connection_id: Id,
  external_id: z.string(),
  product_id: Id,
  plan_id: Id,
  renewal: StoreRenewal,
  duration_days: z.number().int().nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type StoreMapping = z.infer<typeof StoreMapping>;

export const StoreMappingList = z.object({ mappings: z.array(StoreMapping) });
export type StoreMappingList = z.infer<typeof StoreMappingList>;
