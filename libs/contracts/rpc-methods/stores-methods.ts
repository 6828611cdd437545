import * as events from '../stores/received-store-events.js';
import * as connections from '../stores/store-connections.js';
import { EmptyRequest, Health, method } from './method.js';

/** The stores service's RPC methods (store connections, product mappings, received events). */
export const storesMethods = {
  'stores.health': method('stores', EmptyRequest, Health),
  /** A store's delivery: checked, written once, answered; applied to its license after. */
  'stores.receiveEvent': method(
    'stores',
    events.ReceiveStoreEventRequest,
    events.ReceivedStoreEvent,
  ),
  'stores.createConnection': method(
    'stores',
    connections.CreateStoreConnectionRequest,
    connections.StoreConnection,
  ),
  'stores.listConnections': method('stores', EmptyRequest, connections.StoreConnectionList),
  'stores.getConnection': method(
    'stores',
    connections.StoreConnectionRef,
    connections.StoreConnection,
  ),
  'stores.updateConnection': method(
    'stores',
    connections.UpdateStoreConnectionRequest,
    connections.StoreConnection,
  ),
  /** Deletes the connection and its mappings; its received events stay in the log. */
  'stores.deleteConnection': method(
    'stores',
    connections.StoreConnectionRef,
    connections.StoreConnection,
  ),
  'stores.createMapping': method(
    'stores',
    connections.CreateStoreMappingRequest,
    connections.StoreMapping,
  ),
  'stores.listMappings': method(
    'stores',
    connections.StoreConnectionRef,
    connections.StoreMappingList,
  ),
  'stores.updateMapping': method(
    'stores',
    connections.UpdateStoreMappingRequest,
    connections.StoreMapping,
  ),
  'stores.deleteMapping': method('stores', connections.StoreMappingRef, connections.StoreMapping),
  'stores.listEvents': method('stores', events.ListStoreEventsRequest, events.StoreEventPage),
  'stores.getEvent': method('stores', events.StoreEventRef, events.StoreEventRecord),
  /** A failed or unmapped event, pending again: applied as if just received. */
  'stores.applyEventAgain': method('stores', events.StoreEventRef, events.StoreEventRecord),
} as const;
