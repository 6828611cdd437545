import { retryableStoreEventOutcomes } from '../../libs/contracts/stores/received-store-events.js';
import type {
  KeptEndingRecord,
  StoreConnectionRecord,
  StoreEventRecord,
  StoreLinkRecord,
  StoreMappingRecord,
  StoreServiceStores,
  StoredSigningSecret,
} from '../../services/stores/stores.js';
import { deepCopy } from '../../bench/support/deep-copy.js';

type HeldEvent = StoreEventRecord & { claim: string | null; claimed_until: Date | null };

const defined = <T extends object>(changes: T): Partial<T> =>
  Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined)) as Partial<T>;

/**
 * The stores service's stores in memory, with the semantics of the MongoDB ones
 * (test/integration/store-service-stores.test.ts runs one contract against both).
 */
export function memoryStoreServiceStores(): StoreServiceStores & {
  /** Every event with its claim, for assertions. */
  allEvents(): HeldEvent[];
} {
  const connections = new Map<number, StoreConnectionRecord>();
  const mappings = new Map<number, StoreMappingRecord>();
  const events = new Map<number, HeldEvent>();
  const links = new Map<string, StoreLinkRecord>();
  const endings = new Map<string, KeptEndingRecord>();
  const endingKey = (connectionId: number, eventId: string) => `${connectionId}:${eventId}`;
  const seq = { connection: 0, mapping: 0, event: 0 };
  const copy = deepCopy;
  const eventOf = ({ claim: _c, claimed_until: _u, ...event }: HeldEvent): StoreEventRecord =>
    copy(event);

  return {
    allEvents: () => [...events.values()].map(copy),
    connections: {
      async create({ signing_secret, ...fields }) {
        const record: StoreConnectionRecord = {
          ...copy(fields),
          id: ++seq.connection,
          secrets: [{ secret: signing_secret, expires_at: null }],
          secret_rotated_at: null,
          updated_at: fields.created_at,
        };
        connections.set(record.id, record);
        return copy(record);
      },
      async list() {
        return [...connections.values()].sort((a, b) => a.id - b.id).map(copy);
      },
      async find(id) {
        const found = connections.get(id);
        return found ? copy(found) : null;
      },
      async update(id, { emails, ...changes }, now) {
        const found = connections.get(id);
        if (!found) return null;
        Object.assign(found, defined(copy(changes)), { updated_at: now });
        found.emails = { ...found.emails, ...defined(emails ?? {}) };
        return copy(found);
      },
      async rotateSecret(id, secret, now, previousUntil) {
        const found = connections.get(id);
        if (!found) return null;
        const previous = found.secrets.find(({ expires_at }) => expires_at === null);
        const secrets: StoredSigningSecret[] = [{ secret, expires_at: null }];
        if (previous) secrets.push({ secret: previous.secret, expires_at: previousUntil });
        Object.assign(found, { secrets, secret_rotated_at: now, updated_at: now });
        return copy(found);
      },
      async remove(id) {
        const found = connections.get(id);
        connections.delete(id);
        return found ? copy(found) : null;
      },
    },
    mappings: {
      async create(mapping) {
        const id = ++seq.mapping;
        const taken = [...mappings.values()].some(
          (m) => m.connection_id === mapping.connection_id && m.external_id === mapping.external_id,
        );
        if (taken) return 'exists';
        const record = { ...copy(mapping), id, updated_at: mapping.created_at };
        mappings.set(id, record);
        return copy(record);
      },
      async list(connectionId) {
        return [...mappings.values()]
          .filter((m) => m.connection_id === connectionId)
          .sort((a, b) => a.id - b.id)
          .map(copy);
      },
      async find(id) {
        const found = mappings.get(id);
        return found ? copy(found) : null;
      },
      async firstMapped(connectionId, externalIds) {
        for (const externalId of externalIds) {
          const found = [...mappings.values()].find(
            (m) => m.connection_id === connectionId && m.external_id === externalId,
          );
          if (found) return copy(found);
        }
        return null;
      },
      async update(id, changes, now) {
        const found = mappings.get(id);
        if (!found) return null;
        Object.assign(found, defined(changes), { updated_at: now });
        return copy(found);
      },
      async remove(id) {
        const found = mappings.get(id);
        mappings.delete(id);
        return found ? copy(found) : null;
      },
      async removeForConnection(connectionId) {
        for (const [id, m] of mappings) if (m.connection_id === connectionId) mappings.delete(id);
      },
    },
    events: {
      async add(event) {
        const id = ++seq.event;
        const taken = [...events.values()].some(
          (e) => e.connection_id === event.connection_id && e.event_id === event.event_id,
        );
        if (taken) return 'duplicate';
        const record: HeldEvent = {
          ...copy(event),
          id,
          attempts: 0,
          mail: [],
          applied_at: null,
          license_key: null,
          claim: null,
          claimed_until: null,
        };
        events.set(id, record);
        return eventOf(record);
      },
      async claimDue(now, claim, until) {
        const due = [...events.values()]
          .filter(
            (e) =>
              e.outcome === 'pending' &&
              e.due_at !== null &&
              e.due_at <= now &&
              (e.claimed_until === null || e.claimed_until <= now),
          )
          .sort((a, b) => a.due_at!.getTime() - b.due_at!.getTime() || a.id - b.id)[0];
        if (!due) return null;
        Object.assign(due, { claim, claimed_until: until });
        return eventOf(due);
      },
      async extendClaim(id, claim, until) {
        const found = events.get(id);
        if (!found || found.claim !== claim || found.outcome !== 'pending') return false;
        found.claimed_until = until;
        return true;
      },
      async finish(id, claim, result) {
        const found = events.get(id);
        if (!found || found.claim !== claim || found.outcome !== 'pending') return false;
        Object.assign(found, copy(result), { claim: null, claimed_until: null });
        return true;
      },
      async applyAgain(id, now) {
        const found = events.get(id);
        if (!found) return null;
        if (!(retryableStoreEventOutcomes as readonly string[]).includes(found.outcome)) {
          return 'not_retryable';
        }
        Object.assign(found, {
          outcome: 'pending',
          detail: null,
          attempts: 0,
          due_at: now,
          claim: null,
          claimed_until: null,
        });
        return eventOf(found);
      },
      async find(id) {
        const found = events.get(id);
        return found ? eventOf(found) : null;
      },
      async page({ connection_id, outcome }, page, perPage) {
        const matching = [...events.values()]
          .filter(
            (e) =>
              (connection_id === null || e.connection_id === connection_id) &&
              (outcome === null || e.outcome === outcome),
          )
          .sort((a, b) => b.id - a.id);
        return {
          events: matching.slice((page - 1) * perPage, page * perPage).map(eventOf),
          total: matching.length,
        };
      },
    },
    links: {
      async find(connectionId, { order_id, subscription_id }) {
        const all = [...links.values()].filter((l) => l.connection_id === connectionId);
        const found =
          (subscription_id !== null &&
            all.find(
              (l) =>
                l.subscription_id === subscription_id ||
                l.resubscription_ids.includes(subscription_id),
            )) ||
          (order_id !== null &&
            all.find((l) => l.order_id === order_id || l.renewal_order_ids.includes(order_id))) ||
          null;
        return found ? copy(found) : null;
      },
      async save(link) {
        links.set(link.license_key, copy(link));
      },
      async pastGrace(connectionId, before) {
        return [...links.values()]
          .filter(
            (l) =>
              l.connection_id === connectionId &&
              l.past_due_since !== null &&
              l.past_due_since <= before &&
              l.grace_suspended_at === null,
          )
          .map(copy);
      },
      async markGraceSuspended(licenseKey, at) {
        const found = links.get(licenseKey);
        if (!found || found.past_due_since === null || found.grace_suspended_at !== null) {
          return false;
        }
        Object.assign(found, { grace_suspended_at: new Date(at), status: 'suspended' });
        return true;
      },
    },
    endings: {
      async keep(ending) {
        const key = endingKey(ending.connection_id, ending.event_id);
        if (!endings.has(key)) endings.set(key, { ...copy(ending), applied_to: null });
      },
      async pending(connectionId, { order_ids, subscription_ids }) {
        return [...endings.values()]
          .filter(
            (e) =>
              e.connection_id === connectionId &&
              e.applied_to === null &&
              ((e.order_id !== null && order_ids.includes(e.order_id)) ||
                (e.subscription_id !== null && subscription_ids.includes(e.subscription_id))),
          )
          .sort((a, b) => a.occurred_at.getTime() - b.occurred_at.getTime())
          .map(copy);
      },
      async markApplied(connectionId, eventId, licenseKey) {
        const found = endings.get(endingKey(connectionId, eventId));
        if (!found || found.applied_to !== null) return false;
        found.applied_to = licenseKey;
        return true;
      },
    },
  };
}
