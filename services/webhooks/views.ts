import type {
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointWithSecret,
} from '../../libs/contracts/index.js';
import type { WebhookDeliveryRecord, WebhookEndpointRecord } from './stores.js';

const iso = (date: Date | null) => (date === null ? null : date.toISOString());

/** An endpoint as the management API shows it: never its secrets. */
export function endpointView(record: WebhookEndpointRecord): WebhookEndpoint {
  return {
    id: record.id,
    url: record.url,
    events: record.events,
    description: record.description,
    enabled: record.enabled,
    disabled_reason: record.disabled_reason,
    failing_since: iso(record.failing_since),
    created_at: record.created_at.toISOString(),
    secret_rotated_at: iso(record.secret_rotated_at),
  };
}

/** An endpoint with its current secret: the answer of its creation and of a rotation only. */
export function endpointWithSecretView(record: WebhookEndpointRecord): WebhookEndpointWithSecret {
  return { ...endpointView(record), secret: record.secrets[0]!.secret };
}

export function deliveryView(record: WebhookDeliveryRecord): WebhookDelivery {
  return {
    id: record.id,
    endpoint_id: record.endpoint_id,
    event_type: record.event_type,
    payload: record.payload,
    status: record.status,
    attempts: record.attempts.map(({ at, ...attempt }) => ({ at: at.toISOString(), ...attempt })),
    next_attempt_at: iso(record.next_attempt_at),
    created_at: record.created_at.toISOString(),
  };
}
