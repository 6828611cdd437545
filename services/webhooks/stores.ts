import type { WebhookDeliveryStatus } from '../../libs/contracts/index.js';
import type { AttemptRecord } from './rules.js';

/** A secret and when it stops signing: null for the current one. */
export interface StoredSecret {
  secret: string;
  expires_at: Date | null;
}

export interface WebhookEndpointRecord {
  id: number;
  url: string;
  events: string[];
  description: string | null;
  enabled: boolean;
  disabled_reason: 'admin' | 'failing' | null;
  failing_since: Date | null;
  created_at: Date;
  secret_rotated_at: Date | null;
  /** The current secret first. */
  secrets: StoredSecret[];
}

export interface NewWebhookEndpoint {
  url: string;
  events: string[];
  description: string | null;
  secret: string;
  created_at: Date;
}

export type WebhookEndpointChanges = Partial<
  Pick<
    WebhookEndpointRecord,
    'url' | 'events' | 'description' | 'enabled' | 'disabled_reason' | 'failing_since'
  >
>;

/** The endpoints deliveries are sent to. */
export interface WebhookEndpointStore {
  /** A new endpoint under the next id; null when `limit` endpoints exist already. */
  create(endpoint: NewWebhookEndpoint, limit: number): Promise<WebhookEndpointRecord | null>;
  /** Every endpoint, by id. */
  list(): Promise<WebhookEndpointRecord[]>;
  /** The enabled endpoints, by id: those the senders send to. */
  enabled(): Promise<WebhookEndpointRecord[]>;
  /** The enabled endpoints that receive events of this type (they named it, or `*`), by id. */
  wanting(type: string): Promise<WebhookEndpointRecord[]>;
  find(id: number): Promise<WebhookEndpointRecord | null>;
  update(id: number, changes: WebhookEndpointChanges): Promise<WebhookEndpointRecord | null>;
  remove(id: number): Promise<WebhookEndpointRecord | null>;
  /** `secret` becomes the current one; the one before it signs until `previousUntil`. */
  rotateSecret(
    id: number,
    secret: string,
    now: Date,
    previousUntil: Date,
  ): Promise<WebhookEndpointRecord | null>;
}

export interface WebhookDeliveryRecord {
  /** The `webhook-id` of every attempt. */
  id: string;
  endpoint_id: number;
  event_type: string;
  /** When the event happened: the lag of a delivery is measured from it. */
  event_at: Date;
  payload: string;
  status: WebhookDeliveryStatus;
  attempts: AttemptRecord[];
  next_attempt_at: Date | null;
  created_at: Date;
}

export type NewWebhookDelivery = Omit<WebhookDeliveryRecord, 'attempts' | 'status'>;

/** Deliveries and their attempts: the delivery log, and the work of the senders. */
export interface WebhookDeliveryStore {
  /** Adds deliveries, due at their `next_attempt_at`; one whose id is there already is left as it is. */
  add(deliveries: readonly NewWebhookDelivery[]): Promise<void>;
  /**
   * Takes the pending delivery due first (at `now` or before) to one of `endpointIds`, for one
   * attempt: it is marked with `claim` and due again only at `until`, so no other sender takes it
   * before then, and another does after then if this one never recorded its attempt.
   */
  claimDue(
    now: Date,
    endpointIds: readonly number[],
    claim: string,
    until: Date,
  ): Promise<WebhookDeliveryRecord | null>;
  /**
   * Records an attempt made under `claim`, and the delivery's state after it; false (nothing
   * recorded) when the claim was no longer held.
   */
  recordAttempt(
    id: string,
    claim: string,
    attempt: AttemptRecord,
    state: { status: WebhookDeliveryStatus; next_attempt_at: Date | null },
  ): Promise<boolean>;
  /** An endpoint's deliveries, newest first, with how many match. */
  page(
    endpointId: number,
    status: WebhookDeliveryStatus | null,
    page: number,
    perPage: number,
  ): Promise<{ deliveries: WebhookDeliveryRecord[]; total: number }>;
  find(endpointId: number, id: string): Promise<WebhookDeliveryRecord | null>;
  /**
   * The delivery, pending and due at `now` whatever its state, its lapsed claim dropped; or
   * `attempting`, changing nothing, while a sender holds its claim: a retry then would send it
   * a second time at once, and the attempt under way could no longer be recorded. Null when the
   * endpoint has no such delivery.
   */
  retryNow(
    endpointId: number,
    id: string,
    now: Date,
  ): Promise<WebhookDeliveryRecord | 'attempting' | null>;
  /** Forgets an endpoint's deliveries (the endpoint was deleted). */
  removeForEndpoint(endpointId: number): Promise<void>;
}

export interface WebhookStores {
  endpoints: WebhookEndpointStore;
  deliveries: WebhookDeliveryStore;
}
