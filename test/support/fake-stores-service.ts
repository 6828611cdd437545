import {
  LicensingError,
  type MethodName,
  type RpcMethods,
  type ResponseOf,
} from '../../libs/contracts/index.js';
import {
  retryableStoreEventOutcomes,
  type StoreEventRecord,
} from '../../libs/contracts/stores/received-store-events.js';
import type {
  StoreConnection,
  StoreMapping,
} from '../../libs/contracts/stores/store-connections.js';
import type { z } from 'zod';
import type { HandlerTable } from '../../libs/transport/codec.js';

/** A request as the service reads it: parsed by its schema, defaults filled in. */
type Parsed<M extends MethodName> = z.output<RpcMethods[M]['request']>;

/**
 * A stand-in for the stores service's RPC methods, for the tests of what the management API adds
 * to them (the events URL, roles, audit entries, refusals before any call): connections,
 * mappings and events in memory, every request it was sent kept in `calls`, secrets in
 * `secrets` (as the service keeps them, never answered).
 */
export function fakeStoresService() {
  const connections = new Map<number, StoreConnection>();
  const mappings = new Map<number, StoreMapping>();
  const events = new Map<number, StoreEventRecord>();
  const secrets = new Map<number, string[]>();
  const calls: { method: MethodName; request: unknown }[] = [];
  let lastId = 0;
  const now = () => new Date().toISOString();
  const found = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new LicensingError('NOT_FOUND', `No ${what} with this id.`);
    return value;
  };
  const handle =
    <M extends MethodName>(method: M, answer: (request: Parsed<M>) => ResponseOf<M>) =>
    async (request: unknown) => {
      calls.push({ method, request });
      return answer(request as Parsed<M>);
    };

  const handlers: HandlerTable = {
    'stores.createConnection': handle('stores.createConnection', (request) => {
      const { signing_secret, api_key, ...settings } = request;
      const made: StoreConnection = {
        ...settings,
        id: ++lastId,
        api_key_set: api_key !== null,
        secret_rotated_at: null,
        created_at: now(),
        updated_at: now(),
      } as StoreConnection;
      connections.set(made.id, made);
      secrets.set(made.id, [signing_secret, ...(api_key === null ? [] : [api_key])]);
      return made;
    }),
    'stores.listConnections': handle('stores.listConnections', () => ({
      connections: [...connections.values()],
    })),
    'stores.getConnection': handle('stores.getConnection', ({ id }) =>
      found(connections.get(id), 'store connection'),
    ),
    'stores.updateConnection': handle('stores.updateConnection', (request) => {
      const { id, signing_secret, api_key, emails, ...changes } = request;
      const was = found(connections.get(id), 'store connection');
      const changed: StoreConnection = {
        ...was,
        ...changes,
        emails: { ...was.emails, ...emails },
        ...(api_key === undefined ? {} : { api_key_set: api_key !== null }),
        ...(signing_secret === undefined ? {} : { secret_rotated_at: now() }),
        updated_at: now(),
      };
      connections.set(id, changed);
      if (signing_secret !== undefined) secrets.get(id)!.push(signing_secret);
      if (typeof api_key === 'string') secrets.get(id)!.push(api_key);
      return changed;
    }),
    'stores.deleteConnection': handle('stores.deleteConnection', ({ id }) => {
      const gone = found(connections.get(id), 'store connection');
      connections.delete(id);
      return gone;
    }),
    'stores.createMapping': handle('stores.createMapping', (request) => {
      found(connections.get(request.connection_id), 'store connection');
      const made = { ...request, id: ++lastId, created_at: now(), updated_at: now() };
      mappings.set(made.id, made);
      return made;
    }),
    'stores.listMappings': handle('stores.listMappings', ({ id }) => {
      found(connections.get(id), 'store connection');
      return { mappings: [...mappings.values()].filter((m) => m.connection_id === id) };
    }),
    'stores.updateMapping': handle('stores.updateMapping', ({ id, ...changes }) => {
      const changed = {
        ...found(mappings.get(id), 'store mapping'),
        ...changes,
        updated_at: now(),
      };
      mappings.set(id, changed);
      return changed;
    }),
    'stores.deleteMapping': handle('stores.deleteMapping', ({ id }) => {
      const gone = found(mappings.get(id), 'store mapping');
      mappings.delete(id);
      return gone;
    }),
    'stores.listEvents': handle('stores.listEvents', (request) => {
      const listed = [...events.values()]
        .filter((e) => request.connection_id === null || e.connection_id === request.connection_id)
        .filter((e) => request.outcome === null || e.outcome === request.outcome)
        .reverse();
      const start = (request.page - 1) * request.per_page;
      return {
        events: listed.slice(start, start + request.per_page),
        page: request.page,
        per_page: request.per_page,
        total: listed.length,
      };
    }),
    'stores.getEvent': handle('stores.getEvent', ({ id }) =>
      found(events.get(id), 'received store event'),
    ),
    'stores.applyEventAgain': handle('stores.applyEventAgain', ({ id }) => {
      const event = found(events.get(id), 'received store event');
      if (!(retryableStoreEventOutcomes as readonly string[]).includes(event.outcome)) {
        throw new LicensingError('STORE_EVENT_NOT_RETRYABLE', `The event is ${event.outcome}.`);
      }
      const again = { ...event, outcome: 'pending' as const, detail: null };
      events.set(id, again);
      return again;
    }),
  };

  /** An event as if a store had delivered it and applying it had come to `outcome`. */
  const receive = (
    connectionId: number,
    outcome: StoreEventRecord['outcome'],
  ): StoreEventRecord => {
    const id = ++lastId;
    const event: StoreEventRecord = {
      id,
      connection_id: connectionId,
      event_id: `evt_${id}`,
      type: 'invoice.paid',
      received_at: now(),
      occurred_at: now(),
      order_id: null,
      subscription_id: `sub_${id}`,
      external_ids: ['price_1'],
      outcome,
      detail: outcome === 'failed' ? 'The license service did not answer.' : null,
      attempts: 1,
      license_key: null,
      mail: [],
      applied_at: null,
    };
    events.set(id, event);
    return event;
  };

  return { handlers, calls, secrets, receive };
}
