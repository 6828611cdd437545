import { API_BASE } from '../../../libs/contracts/api-base.js';
import type { StoreConnection } from '../../../libs/contracts/stores/store-connections.js';
import type { StoreConnectionView } from '../../../libs/contracts/stores/store-connection-views.js';

/**
 * Where a store sends a connection's events: the gateway's route
 * `{api_base}/stores/{id}/events` at the public address (PUBLIC_URL), or the path alone when
 * that address is not known, as the key set's address is (operations/signing-keys.ts).
 */
export function eventsUrl(publicUrl: string | undefined, connectionId: number): string {
  return `${publicUrl?.replace(/\/+$/, '') ?? ''}${API_BASE}/stores/${connectionId}/events`;
}

/** A connection as the admin sees it: the stores service's answer and its events URL. */
export function connectionView(
  connection: StoreConnection,
  publicUrl: string | undefined,
): StoreConnectionView {
  return { ...connection, events_url: eventsUrl(publicUrl, connection.id) };
}
