import type { StoreEventRecord as StoreEventView } from '../../libs/contracts/stores/received-store-events.js';
import type {
  StoreConnection,
  StoreMapping,
} from '../../libs/contracts/stores/store-connections.js';
import type { StoreConnectionRecord, StoreEventRecord, StoreMappingRecord } from './stores.js';

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/** A connection as it is answered: never its secrets or API key, only whether one is set. */
export function connectionView(record: StoreConnectionRecord): StoreConnection {
  return {
    id: record.id,
    name: record.name,
    provider: record.provider,
    mode: record.mode,
    grace_days: record.grace_days,
    emails: { ...record.emails },
    api_key_set: record.api_key !== null,
    secret_rotated_at: iso(record.secret_rotated_at),
    created_at: record.created_at.toISOString(),
    updated_at: record.updated_at.toISOString(),
  };
}

export function mappingView(record: StoreMappingRecord): StoreMapping {
  return {
    id: record.id,
    connection_id: record.connection_id,
    external_id: record.external_id,
    product_id: record.product_id,
    plan_id: record.plan_id,
    renewal: record.renewal,
    duration_days: record.duration_days,
    created_at: record.created_at.toISOString(),
    updated_at: record.updated_at.toISOString(),
  };
}

/** An event as admins see it: never its body or headers, which stay for applying it again. */
export function eventView(record: StoreEventRecord): StoreEventView {
  return {
    id: record.id,
    connection_id: record.connection_id,
    event_id: record.event_id,
    type: record.type,
    received_at: record.received_at.toISOString(),
    occurred_at: iso(record.occurred_at),
    order_id: record.order_id,
    subscription_id: record.subscription_id,
    external_ids: [...record.external_ids],
    outcome: record.outcome,
    detail: record.detail,
    attempts: record.attempts,
    license_key: record.license_key,
    mail: record.mail.map(({ at, ...mail }) => ({ ...mail, at: at.toISOString() })),
    applied_at: iso(record.applied_at),
  };
}
