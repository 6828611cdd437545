import type {
  StoredSecret,
  WebhookDeliveryRecord,
  WebhookEndpointRecord,
  WebhookStores,
} from '../../services/webhooks/stores.js';
import { endpointWants } from '../../services/webhooks/rules.js';
import { deepCopy } from '../../bench/support/deep-copy.js';

type StoredDelivery = WebhookDeliveryRecord & { claim: string | null };

/**
 * The webhooks service's stores in memory, with the semantics of the MongoDB ones
 * (test/integration/webhook-stores.test.ts runs the same contract against both): endpoint ids
 * from 1, deliveries newest first, claims that hide a delivery until they lapse, copies in and out.
 */
export function memoryWebhookStores(): WebhookStores & {
  /** Every delivery with its claim, for assertions. */
  allDeliveries(): StoredDelivery[];
} {
  const endpoints = new Map<number, WebhookEndpointRecord>();
  const deliveries = new Map<string, StoredDelivery>();
  let lastId = 0;
  const copy = deepCopy;
  const strip = ({ claim: _claim, ...record }: StoredDelivery): WebhookDeliveryRecord =>
    copy(record);

  return {
    allDeliveries: () => [...deliveries.values()].map(copy),
    endpoints: {
      async create({ secret, ...endpoint }, limit) {
        if (endpoints.size >= limit) return null;
        const record: WebhookEndpointRecord = {
          ...copy(endpoint),
          id: ++lastId,
          enabled: true,
          disabled_reason: null,
          failing_since: null,
          secret_rotated_at: null,
          secrets: [{ secret, expires_at: null }],
        };
        endpoints.set(record.id, record);
        return copy(record);
      },
      async list() {
        return [...endpoints.values()].sort((a, b) => a.id - b.id).map(copy);
      },
      async enabled() {
        return [...endpoints.values()]
          .filter((e) => e.enabled)
          .sort((a, b) => a.id - b.id)
          .map(copy);
      },
      async wanting(type) {
        return [...endpoints.values()]
          .filter((e) => e.enabled && endpointWants(e.events, type))
          .sort((a, b) => a.id - b.id)
          .map(copy);
      },
      async find(id) {
        const found = endpoints.get(id);
        return found ? copy(found) : null;
      },
      async update(id, changes) {
        const found = endpoints.get(id);
        if (!found) return null;
        const defined = Object.fromEntries(
          Object.entries(changes).filter(([, value]) => value !== undefined),
        );
        const updated = { ...found, ...copy(defined) };
        endpoints.set(id, updated);
        return copy(updated);
      },
      async remove(id) {
        const found = endpoints.get(id);
        endpoints.delete(id);
        return found ? copy(found) : null;
      },
      async rotateSecret(id, secret, now, previousUntil) {
        const found = endpoints.get(id);
        if (!found) return null;
        const previous = found.secrets.find(({ expires_at }) => expires_at === null);
        const secrets: StoredSecret[] = [{ secret, expires_at: null }];
        if (previous) secrets.push({ secret: previous.secret, expires_at: previousUntil });
        const updated = { ...found, secrets, secret_rotated_at: now };
        endpoints.set(id, copy(updated));
        return copy(updated);
      },
    },
    deliveries: {
      async add(records) {
        for (const record of records) {
          if (deliveries.has(record.id)) continue;
          deliveries.set(record.id, {
            ...copy(record),
            status: 'pending',
            attempts: [],
            claim: null,
          });
        }
      },
      async claimDue(now, endpointIds, claim, until) {
        const due = [...deliveries.values()]
          .filter(
            (d) =>
              d.status === 'pending' &&
              d.next_attempt_at !== null &&
              d.next_attempt_at.getTime() <= now.getTime() &&
              endpointIds.includes(d.endpoint_id),
          )
          .sort((a, b) => a.next_attempt_at!.getTime() - b.next_attempt_at!.getTime());
        const first = due[0];
        if (!first) return null;
        first.claim = claim;
        first.next_attempt_at = new Date(until.getTime());
        return strip(first);
      },
      async recordAttempt(id, claim, attempt, state) {
        const found = deliveries.get(id);
        if (!found || found.claim !== claim || found.status !== 'pending') return false;
        found.attempts.push(copy(attempt));
        found.status = state.status;
        found.next_attempt_at = state.next_attempt_at && new Date(state.next_attempt_at.getTime());
        found.claim = null;
        return true;
      },
      async page(endpointId, status, page, perPage) {
        const matching = [...deliveries.values()]
          .filter((d) => d.endpoint_id === endpointId && (status === null || d.status === status))
          .sort(
            (a, b) => b.created_at.getTime() - a.created_at.getTime() || (a.id < b.id ? 1 : -1),
          );
        return {
          deliveries: matching.slice((page - 1) * perPage, page * perPage).map(strip),
          total: matching.length,
        };
      },
      async find(endpointId, id) {
        const found = deliveries.get(id);
        return found && found.endpoint_id === endpointId ? strip(found) : null;
      },
      async retryNow(endpointId, id, now) {
        const found = deliveries.get(id);
        if (!found || found.endpoint_id !== endpointId) return null;
        const lapsed = found.next_attempt_at !== null && found.next_attempt_at <= now;
        if (found.claim !== null && !lapsed) return 'attempting';
        found.status = 'pending';
        found.next_attempt_at = new Date(now.getTime());
        found.claim = null;
        return strip(found);
      },
      async removeForEndpoint(endpointId) {
        for (const [id, d] of deliveries) if (d.endpoint_id === endpointId) deliveries.delete(id);
      },
    },
  };
}
