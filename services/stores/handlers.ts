import { LicensingError } from '../../libs/contracts/index.js';
import type { ServedHandlers } from '../../libs/transport/index.js';
import { receiveStoreEvent, type ReceivingDeps } from './receive-event.js';
import { PREVIOUS_SECRET_KEPT_MS } from './signing-secrets.js';
import type { StoreConnectionRecord } from './stores.js';
import { connectionView, eventView, mappingView } from './views.js';

const noConnection = (id: number) =>
  new LicensingError('NOT_FOUND', `No store connection has the id ${id}.`);
const noMapping = (id: number) =>
  new LicensingError('NOT_FOUND', `No product mapping has the id ${id}.`);
const noEvent = (id: number) => new LicensingError('NOT_FOUND', `No store event has the id ${id}.`);

/** RPC handlers of the stores service: connections, mappings, the event log and deliveries. */
export function createStoreHandlers(deps: ReceivingDeps): ServedHandlers<'stores'> {
  const { stores, clock, nudge } = deps;

  async function existing(id: number): Promise<StoreConnectionRecord> {
    const connection = await stores.connections.find(id);
    if (!connection) throw noConnection(id);
    return connection;
  }

  return {
    'stores.receiveEvent': (request, context) =>
      receiveStoreEvent(deps, request, () => context.beforeWrite()),

    'stores.createConnection': async ({ signing_secret, ...fields }, context) => {
      context.beforeWrite();
      const created = await stores.connections.create({
        ...fields,
        signing_secret,
        created_at: clock(),
      });
      return connectionView(created);
    },

    'stores.listConnections': async () => ({
      connections: (await stores.connections.list()).map(connectionView),
    }),

    'stores.getConnection': async ({ id }) => connectionView(await existing(id)),

    'stores.updateConnection': async ({ id, signing_secret, ...changes }, context) => {
      await existing(id);
      const now = clock();
      context.beforeWrite();
      let updated = await stores.connections.update(id, changes, now);
      if (
        updated &&
        signing_secret !== undefined &&
        signing_secret !== updated.secrets[0]?.secret
      ) {
        // A rotation: the store may still sign with the secret before for a while.
        context.beforeWrite();
        updated = await stores.connections.rotateSecret(
          id,
          signing_secret,
          now,
          new Date(now.getTime() + PREVIOUS_SECRET_KEPT_MS),
        );
      }
      if (!updated) throw noConnection(id);
      return connectionView(updated);
    },

    'stores.deleteConnection': async ({ id }, context) => {
      context.beforeWrite();
      const removed = await stores.connections.remove(id);
      if (!removed) throw noConnection(id);
      context.beforeWrite();
      await stores.mappings.removeForConnection(id);
      return connectionView(removed);
    },

    'stores.createMapping': async (mapping, context) => {
      await existing(mapping.connection_id);
      context.beforeWrite();
      const created = await stores.mappings.create({ ...mapping, created_at: clock() });
      if (created === 'exists') {
        throw new LicensingError(
          'ALREADY_EXISTS',
          `Store connection ${mapping.connection_id} maps ${mapping.external_id} already.`,
        );
      }
      return mappingView(created);
    },

    'stores.listMappings': async ({ id }) => {
      await existing(id);
      return { mappings: (await stores.mappings.list(id)).map(mappingView) };
    },

    'stores.updateMapping': async ({ id, ...changes }, context) => {
      context.beforeWrite();
      const updated = await stores.mappings.update(id, changes, clock());
      if (!updated) throw noMapping(id);
      return mappingView(updated);
    },

    'stores.deleteMapping': async ({ id }, context) => {
      context.beforeWrite();
      const removed = await stores.mappings.remove(id);
      if (!removed) throw noMapping(id);
      return mappingView(removed);
    },

    'stores.listEvents': async ({ connection_id, outcome, page, per_page }) => {
      const found = await stores.events.page({ connection_id, outcome }, page, per_page);
      return { events: found.events.map(eventView), page, per_page, total: found.total };
    },

    'stores.getEvent': async ({ id }) => {
      const event = await stores.events.find(id);
      if (!event) throw noEvent(id);
      return eventView(event);
    },

    'stores.applyEventAgain': async ({ id }, context) => {
      context.beforeWrite();
      const event = await stores.events.applyAgain(id, clock());
      if (event === null) throw noEvent(id);
      if (event === 'not_retryable') {
        throw new LicensingError(
          'STORE_EVENT_NOT_RETRYABLE',
          `Store event ${id} is neither failed nor unmapped: only those are applied again.`,
        );
      }
      nudge();
      return eventView(event);
    },
  };
}
