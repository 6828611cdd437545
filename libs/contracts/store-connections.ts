import { z } from 'zod';

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
 * How long a store may take to deliver an event signed with a timestamp (Stripe, Paddle): older
 * or newer signatures are refused as stale, which bounds the replay of a captured delivery.
 */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** The largest event body a store connection accepts: stores send a few kilobytes. */
export const MAX_STORE_EVENT_BYTES = 512 * 1024;
