import type { StoreEventOutcome } from '../../libs/contracts/stores/received-store-events.js';
import type {
  StoreEmails,
  StoreMode,
  StoreProvider,
} from '../../libs/contracts/stores/store-connections.js';

/** A signing secret and when it stops verifying: null for the current one. */
export interface StoredSigningSecret {
  secret: string;
  expires_at: Date | null;
}

export interface StoreConnectionRecord {
  id: number;
  name: string;
  provider: StoreProvider;
  mode: StoreMode;
  /** The current secret first; the one it replaced after it, until it expires. */
  secrets: StoredSigningSecret[];
  api_key: string | null;
  grace_days: number;
  emails: StoreEmails;
  secret_rotated_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export type NewStoreConnection = Omit<
  StoreConnectionRecord,
  'id' | 'secrets' | 'secret_rotated_at' | 'updated_at'
> & { signing_secret: string };

/** The settings changed; of the e-mails, only the moments named. */
export type StoreConnectionChanges = Partial<
  Pick<StoreConnectionRecord, 'name' | 'mode' | 'api_key' | 'grace_days'>
> & { emails?: Partial<StoreEmails> | undefined };

/** The stores whose events become licenses. */
export interface StoreConnectionStore {
  create(connection: NewStoreConnection): Promise<StoreConnectionRecord>;
  list(): Promise<StoreConnectionRecord[]>;
  find(id: number): Promise<StoreConnectionRecord | null>;
  update(
    id: number,
    changes: StoreConnectionChanges,
    now: Date,
  ): Promise<StoreConnectionRecord | null>;
  /** `secret` becomes the current one; the one before verifies until `previousUntil`. */
  rotateSecret(
    id: number,
    secret: string,
    now: Date,
    previousUntil: Date,
  ): Promise<StoreConnectionRecord | null>;
  remove(id: number): Promise<StoreConnectionRecord | null>;
}

export interface StoreMappingRecord {
  id: number;
  connection_id: number;
  external_id: string;
  product_id: number;
  plan_id: number;
  renewal: 'gateway' | 'checkout';
  duration_days: number | null;
  created_at: Date;
  updated_at: Date;
}

export type NewStoreMapping = Omit<StoreMappingRecord, 'id' | 'updated_at'>;
export type StoreMappingChanges = Partial<
  Pick<StoreMappingRecord, 'product_id' | 'plan_id' | 'renewal' | 'duration_days'>
>;

/** What a store's price, variant or product id sells: one mapping per id and connection. */
export interface StoreMappingStore {
  /** The new mapping; `exists` when the connection maps that external id already. */
  create(mapping: NewStoreMapping): Promise<StoreMappingRecord | 'exists'>;
  /** A connection's mappings, by id. */
  list(connectionId: number): Promise<StoreMappingRecord[]>;
  find(id: number): Promise<StoreMappingRecord | null>;
  /** The mapping of the first of `externalIds` the connection maps, in their order. */
  firstMapped(
    connectionId: number,
    externalIds: readonly string[],
  ): Promise<StoreMappingRecord | null>;
  update(id: number, changes: StoreMappingChanges, now: Date): Promise<StoreMappingRecord | null>;
  remove(id: number): Promise<StoreMappingRecord | null>;
  removeForConnection(connectionId: number): Promise<void>;
}

export interface MailRecord {
  outcome: 'sent' | 'failed' | 'skipped';
  moment: string;
  detail: string | null;
  at: Date;
}

export interface StoreEventRecord {
  id: number;
  connection_id: number;
  event_id: string;
  type: string;
  received_at: Date;
  occurred_at: Date | null;
  order_id: string | null;
  subscription_id: string | null;
  external_ids: string[];
  outcome: StoreEventOutcome;
  detail: string | null;
  attempts: number;
  license_key: string | null;
  mail: MailRecord[];
  applied_at: Date | null;
  /** The body as received, base64, and the headers it was read with: applied again from these. */
  body: string;
  headers: Record<string, string>;
  /** A pending event is not claimed before this (a retry's backoff). */
  due_at: Date | null;
}

export type NewStoreEvent = Omit<
  StoreEventRecord,
  'id' | 'attempts' | 'mail' | 'applied_at' | 'license_key'
>;

/** What applying an event did, written on it once its claim is still held. */
export interface StoreEventResult {
  outcome: StoreEventOutcome;
  detail: string | null;
  attempts: number;
  license_key: string | null;
  applied_at: Date | null;
  due_at: Date | null;
  mail: MailRecord[];
}

/** The events the stores delivered, each once, and the work of the appliers. */
export interface StoreEventStore {
  /** The event under the next id; `duplicate` when the connection has one of its event id. */
  add(event: NewStoreEvent): Promise<StoreEventRecord | 'duplicate'>;
  /**
   * Takes the pending event due first for one application: it is held under `claim` until
   * `until`, so no other applier takes it meanwhile, and another may after, should this one stop.
   */
  claimDue(now: Date, claim: string, until: Date): Promise<StoreEventRecord | null>;
  /**
   * Holds a claim longer while its event is being applied (a mail server or store API that is
   * slow); false when the claim was no longer held.
   */
  extendClaim(id: number, claim: string, until: Date): Promise<boolean>;
  /** Writes what applying did; false (nothing written) when the claim was no longer held. */
  finish(id: number, claim: string, result: StoreEventResult): Promise<boolean>;
  /** A failed or unmapped event pending again, due now; `not_retryable` for any other. */
  applyAgain(id: number, now: Date): Promise<StoreEventRecord | 'not_retryable' | null>;
  find(id: number): Promise<StoreEventRecord | null>;
  /** Newest first, with how many match. */
  page(
    filter: { connection_id: number | null; outcome: StoreEventOutcome | null },
    page: number,
    perPage: number,
  ): Promise<{ events: StoreEventRecord[]; total: number }>;
}

/** The license an order or subscription of a connection was given, and the marks kept on it. */
export interface StoreLinkRecord {
  connection_id: number;
  order_id: string | null;
  subscription_id: string | null;
  /**
   * The orders of its subscription paid after the one it began with (a renewal's invoice): a
   * refund naming one of them and not the subscription (a Stripe charge) finds the license by it.
   */
  renewal_order_ids: string[];
  /** The subscriptions that resubscribed its own (WooCommerce's resubscribe): their events find it. */
  resubscription_ids: string[];
  license_key: string;
  /** The license's status as the last change made here left it. */
  status: string;
  past_due_since: Date | null;
  last_applied_at: Date | null;
  /** When the grace sweep suspended it; null while it has not, or since it was paid again. */
  grace_suspended_at: Date | null;
}

export interface StoreLinkStore {
  /**
   * The link of the subscription (its own, or one that resubscribed it), else of the order (the
   * one it began with, or a renewal's).
   */
  find(
    connectionId: number,
    refs: { order_id: string | null; subscription_id: string | null },
  ): Promise<StoreLinkRecord | null>;
  /** Writes the link of a license (keyed by its license key), its missing refs filled in. */
  save(link: StoreLinkRecord): Promise<void>;
  /** The links past due since before `before` not yet suspended for it, of one connection. */
  pastGrace(connectionId: number, before: Date): Promise<StoreLinkRecord[]>;
  /**
   * Marks the license suspended for its grace at `at`, unless it was already, or its past-due
   * mark was cleared meanwhile: true for the one caller that marked it, who suspends it.
   */
  markGraceSuspended(licenseKey: string, at: Date): Promise<boolean>;
}

/**
 * What a kept ending does: a full refund (`period_start` set when what it refunded was a
 * renewal's period), a chargeback, or the subscription ended.
 */
export type KeptEndingKind = 'refunded' | 'chargeback' | 'subscription_ended';

/**
 * An ending of a sale (a full refund, a chargeback, the subscription ended) that arrived before
 * the sale's license was made: kept under the connection and the order and subscription it
 * names, and applied to the license the sale's event makes when it arrives.
 */
export interface KeptEndingRecord {
  connection_id: number;
  /** The store's id of the ending event: kept once, however often it is applied. */
  event_id: string;
  order_id: string | null;
  subscription_id: string | null;
  kind: KeptEndingKind;
  period_start: Date | null;
  /** When the store says it happened. */
  occurred_at: Date;
  kept_at: Date;
  /** The license it was applied to; null while none was made. */
  applied_to: string | null;
}

export type NewKeptEnding = Omit<KeptEndingRecord, 'applied_to'>;

export interface KeptEndingStore {
  /** Keeps the ending once per connection and event id: kept again, it changes nothing. */
  keep(ending: NewKeptEnding): Promise<void>;
  /**
   * The endings of a connection not applied yet that name one of the orders or subscriptions,
   * oldest first (by when they happened).
   */
  pending(
    connectionId: number,
    refs: { order_ids: readonly string[]; subscription_ids: readonly string[] },
  ): Promise<KeptEndingRecord[]>;
  /** Marks the ending applied to the license; false when it was marked before. */
  markApplied(connectionId: number, eventId: string, licenseKey: string): Promise<boolean>;
}

export interface StoreServiceStores {
  connections: StoreConnectionStore;
  mappings: StoreMappingStore;
  events: StoreEventStore;
  links: StoreLinkStore;
  endings: KeptEndingStore;
}
