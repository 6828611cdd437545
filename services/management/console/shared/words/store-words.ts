/**
 * The words of the Stores page for the stores' values, and what its forms hold and send:
 * without JSX, so the unit tests read them too.
 */
import type {
  StoreEmails,
  StoreMode,
  StoreProvider,
} from '../../../../../libs/contracts/stores/store-connections.js';
import type { StoreEventOutcome } from '../../../../../libs/contracts/stores/received-store-events.js';

export const PROVIDER_WORDS: Record<StoreProvider, string> = {
  stripe: 'Stripe',
  paddle: 'Paddle Billing',
  lemonsqueezy: 'Lemon Squeezy',
  woocommerce: 'WooCommerce',
};

export const MODE_WORDS: Record<StoreMode, string> = {
  test: 'Test mode',
  live: 'Live mode',
};

/** Where each store shows its webhook's signing secret, for the hint under the field. */
export const SECRET_WHERE: Record<StoreProvider, string> = {
  stripe: 'Workbench → Webhooks → the event destination → Signing secret, Reveal (whsec_…).',
  paddle: 'Developer tools → Notifications → the destination → Secret key (pdl_ntfset_…).',
  lemonsqueezy: 'Settings → Webhooks → the webhook → Signing secret (the text you chose).',
  woocommerce: 'Settings → Advanced → Webhooks → the webhook → Secret (API version v3).',
};

/**
 * What a connection without an API key goes without, said on its page: a Paddle event names its
 * buyer by id only, and the key reads their address. Null when nothing is missing.
 */
export function missingApiKeyWords(connection: {
  provider: StoreProvider;
  api_key_set: boolean;
}): string | null {
  if (connection.api_key_set || connection.provider !== 'paddle') return null;
  return (
    'Paddle buyers get no e-mail until an API key is set: Paddle’s events name the buyer by ' +
    'id only, and with the key their address is read from Paddle.'
  );
}

/** What the ids a mapping names are called in each store. */
export const EXTERNAL_ID_WORDS: Record<StoreProvider, string> = {
  stripe: 'Price id (price_…)',
  paddle: 'Price id (pri_…)',
  lemonsqueezy: 'Variant id',
  woocommerce: 'Product or variation id',
};

export const OUTCOME_WORDS: Record<StoreEventOutcome, string> = {
  pending: 'Pending',
  applied: 'Applied',
  no_change: 'No change',
  stale: 'Stale (older than one applied)',
  unmapped: 'Unmapped',
  unreadable: 'Unreadable',
  failed: 'Failed',
};

/**
 * The outcomes "Apply again" is offered for: libs/contracts/stores/received-store-events.ts
 * `retryableStoreEventOutcomes`.
 */
export const RETRYABLE_OUTCOMES: readonly StoreEventOutcome[] = ['failed', 'unmapped'];

export const EMAIL_WORDS: Record<keyof StoreEmails, string> = {
  created: 'License created',
  renewed: 'License renewed',
  suspended: 'License suspended (payments failed)',
  cancelled: 'License cancelled',
};

export const RENEWAL_WORDS = {
  gateway: 'Renewed by the store (limit kept)',
  checkout: 'Renewed as a checkout (the plan’s terms again)',
} as const;
export type Renewal = keyof typeof RENEWAL_WORDS;

/** A signing secret or API key as the stores issue them: 8 to 512 printable ASCII, no space. */
export const SECRET_PATTERN = /^[\x21-\x7e]{8,512}$/;

/** Why pasted secret text cannot be sent, or null when it can. */
export function secretProblem(text: string): string | null {
  if (text === '') return null;
  if (/\s/.test(text)) return 'It holds a space or line break: paste the secret alone.';
  return SECRET_PATTERN.test(text) ? null : 'A secret is 8 to 512 printable ASCII characters.';
}

/** Grace days as typed: a whole number from 0 to 60. */
export const isGraceDays = (text: string) => /^\d{1,2}$/.test(text) && Number(text) <= 60;

/** What the new-connection form holds. */
export interface ConnectionDraft {
  name: string;
  provider: StoreProvider;
  mode: StoreMode;
  signingSecret: string;
  apiKey: string;
  graceDays: string;
  emails: StoreEmails;
}

export const ALL_EMAILS: StoreEmails = {
  created: true,
  renewed: true,
  suspended: true,
  cancelled: true,
};

export const EMPTY_CONNECTION: ConnectionDraft = {
  name: '',
  provider: 'stripe',
  mode: 'live',
  signingSecret: '',
  apiKey: '',
  graceDays: '3',
  emails: ALL_EMAILS,
};

/** Whether the form can be sent: a name, a secret, an API key if any, and grace days. */
export function connectionComplete(draft: ConnectionDraft): boolean {
  return (
    draft.name.trim() !== '' &&
    draft.signingSecret !== '' &&
    secretProblem(draft.signingSecret) === null &&
    secretProblem(draft.apiKey) === null &&
    isGraceDays(draft.graceDays)
  );
}

/** The body of the POST: the secrets as pasted (never trimmed into another secret), no API key as null. */
export function connectionBody(draft: ConnectionDraft) {
  return {
    name: draft.name.trim(),
    provider: draft.provider,
    mode: draft.mode,
    signing_secret: draft.signingSecret,
    api_key: draft.apiKey === '' ? null : draft.apiKey,
    grace_days: Number(draft.graceDays),
    emails: draft.emails,
  };
}

/** What a mapping's form holds. */
export interface MappingDraft {
  externalId: string;
  productId: number | null;
  planId: number | null;
  renewal: Renewal;
  /** Days a one-off order's license runs; empty: it does not expire. */
  durationDays: string;
}

export const EMPTY_MAPPING: MappingDraft = {
  externalId: '',
  productId: null,
  planId: null,
  renewal: 'gateway',
  durationDays: '',
};

const isDuration = (text: string) =>
  text === '' || (/^[1-9]\d{0,4}$/.test(text) && Number(text) <= 36_500);

export function mappingComplete(draft: MappingDraft): boolean {
  return (
    /^[\x21-\x7e]{1,255}$/.test(draft.externalId.trim()) &&
    draft.productId !== null &&
    draft.planId !== null &&
    isDuration(draft.durationDays)
  );
}

/** The terms of a mapping, as a POST or PATCH sends them (the id only when made). */
export function mappingTerms(draft: MappingDraft) {
  return {
    product_id: draft.productId ?? 0,
    plan_id: draft.planId ?? 0,
    renewal: draft.renewal,
    duration_days: draft.durationDays === '' ? null : Number(draft.durationDays),
  };
}

export function mappingDraftOf(mapping: {
  external_id: string;
  product_id: number;
  plan_id: number;
  renewal: Renewal;
  duration_days: number | null;
}): MappingDraft {
  return {
    externalId: mapping.external_id,
    productId: mapping.product_id,
    planId: mapping.plan_id,
    renewal: mapping.renewal,
    durationDays: mapping.duration_days === null ? '' : String(mapping.duration_days),
  };
}

/** How long a mapped one-off order's license runs, in words. */
export const durationWords = (days: number | null) =>
  days === null ? 'does not expire' : `${days} day${days === 1 ? '' : 's'}`;
