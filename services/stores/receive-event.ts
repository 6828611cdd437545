import { createHash } from 'node:crypto';
import { LicensingError } from '../../libs/contracts/index.js';
import type {
  ReceiveStoreEventRequest,
  ReceivedStoreEvent,
} from '../../libs/contracts/stores/received-store-events.js';
import type { Logger } from '../../libs/logging/index.js';
import { readStoreEvent, storeEventType } from './readers/read-store-event.js';
import type { StoreDelivery } from './receiving/delivery.js';
import { checkStoreSignature } from './receiving/signatures.js';
import { verifyingSecrets } from './signing-secrets.js';
import type { NewStoreEvent, StoreServiceStores } from './stores.js';

export interface ReceivingDeps {
  stores: StoreServiceStores;
  clock: () => Date;
  logger: Logger;
  /** Tells the applier an event is pending now. */
  nudge: () => void;
}

/**
 * A store's delivery (docs/stores.md, "Receiving"): its signature checked on the exact bytes with
 * the connection's secrets, then the event written once, unique on the store's event id, before
 * it is answered. Applying it to a license comes after the answer, by the applier. A refused
 * signature writes nothing; its reason goes to the log, never the body or a secret.
 */
export async function receiveStoreEvent(
  deps: ReceivingDeps,
  request: ReceiveStoreEventRequest,
  beforeWrite: () => void,
): Promise<ReceivedStoreEvent> {
  const { stores, clock, logger } = deps;
  const connection = await stores.connections.find(request.connection_id);
  if (!connection) {
    throw new LicensingError(
      'NOT_FOUND',
      `No store connection has the id ${request.connection_id}.`,
    );
  }
  const now = clock();
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = value;
  }
  const delivery: StoreDelivery = { body: Buffer.from(request.body, 'base64'), headers };
  const check = checkStoreSignature(
    connection.provider,
    delivery,
    verifyingSecrets(connection.secrets, now),
    now,
  );
  if (!check.ok) {
    logger.info(
      { connection: connection.id, provider: connection.provider, reason: check.reason },
      'store event refused: its signature did not verify',
    );
    throw new LicensingError(
      'STORE_SIGNATURE_INVALID',
      "The event's signature did not verify with the connection's signing secret.",
    );
  }
  if (check.kind === 'ping') return { received: 'ping' };

  const reading = readStoreEvent(connection.provider, delivery);
  const event: NewStoreEvent = {
    connection_id: connection.id,
    // An unreadable event is kept for admins to see, under the hash of its bytes: sent again,
    // it is the same event.
    event_id: reading.ok
      ? reading.event.eventId
      : `sha256:${createHash('sha256').update(delivery.body).digest('hex')}`,
    type: storeEventType(connection.provider, delivery),
    received_at: now,
    occurred_at: reading.ok ? reading.event.occurredAt : null,
    order_id: reading.ok ? reading.event.orderId : null,
    subscription_id: reading.ok ? reading.event.subscriptionId : null,
    external_ids: reading.ok ? [...reading.event.externalIds] : [],
    outcome: reading.ok ? 'pending' : 'unreadable',
    detail: reading.ok ? null : reading.reason,
    body: request.body,
    headers,
    due_at: reading.ok ? now : null,
  };
  beforeWrite();
  const added = await stores.events.add(event);
  if (added === 'duplicate') return { received: 'duplicate' };
  logger.info(
    { connection: connection.id, event: added.id, type: added.type, outcome: added.outcome },
    'store event recorded',
  );
  if (added.outcome === 'pending') deps.nudge();
  return { received: 'recorded' };
}
