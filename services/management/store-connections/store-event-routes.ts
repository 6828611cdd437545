import { z } from 'zod';
import {
  ListStoreEventsRequest,
  StoreEventOutcome,
  retryableStoreEventOutcomes,
} from '../../../libs/contracts/stores/received-store-events.js';
import { IdText } from '../../../libs/contracts/index.js';
import { parseWith, type Route } from '../../../libs/http/index.js';
import { adminErrors, byIdErrors } from '../route-makers/admin-errors.js';
import { IdPath, absentIfEmpty, pageFields } from '../route-makers/admin-inputs.js';
import { ADMIN_BASE, type ManagementDeps } from '../management-deps.js';
import { rpcRoute } from '../route-makers/rpc-route.js';

/** The listing of received events: known fields once each; the page bounds. */
const EventListQuery = z.strictObject({
  connection_id: absentIfEmpty(IdText).meta({ description: 'Only the events of this connection.' }),
  outcome: absentIfEmpty(StoreEventOutcome).meta({
    description:
      'Only the events that stand so: pending (to be applied, or retried after a failure), ' +
      'applied, no_change, stale (older than one applied), unmapped, unreadable or failed.',
  }),
  ...pageFields('Events'),
});

const NO_EVENT = 'No received store event with this id.';

/**
 * The events the stores delivered, as the stores service wrote them (docs/stores.md), with what
 * applying each did. Anyone may read them; applying one again changes a license, so it is for
 * support and owners, who change licenses.
 */
export const storeEventRoutes = [
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/store-events`,
    operationId: 'listStoreEvents',
    summary:
      'The events the stores delivered, newest first, a page at a time: the store’s event id ' +
      'and type, the order and subscription, the ids it was mapped by, its outcome and why, ' +
      'the license it made or changed and the e-mails sent.',
    tag: 'Stores',
    query: EventListQuery,
    rpc: 'stores.listEvents',
    // The contract fills in absent fields and bounds page and per_page.
    request: ({ query }) => parseWith(ListStoreEventsRequest, query, 'query'),
    success: { status: 200, description: 'One page of events.' },
    errors: {
      400: adminErrors[400]('An unknown, repeated or malformed parameter.'),
    },
  }),
  rpcRoute({
    method: 'get',
    path: `${ADMIN_BASE}/store-events/:id`,
    operationId: 'getStoreEvent',
    summary: 'One received event and what applying it did.',
    tag: 'Stores',
    params: IdPath,
    rpc: 'stores.getEvent',
    request: ({ params }) => params,
    success: { status: 200, description: 'The event.' },
    errors: byIdErrors(NO_EVENT),
  }),
  rpcRoute({
    method: 'post',
    path: `${ADMIN_BASE}/store-events/:id/apply`,
    operationId: 'applyStoreEventAgain',
    summary:
      `Apply an event again whose outcome is ${retryableStoreEventOutcomes.join(' or ')}, as ` +
      'if just received (after a mapping was added, or what failed was fixed). The answer is ' +
      'the event pending again; what applying it does is read from the event afterwards.',
    tag: 'Stores',
    role: 'support',
    params: IdPath,
    rpc: 'stores.applyEventAgain',
    request: ({ params }) => params,
    success: { status: 200, description: 'The event, pending again.' },
    errors: {
      ...byIdErrors(NO_EVENT),
      409: {
        codes: ['STORE_EVENT_NOT_RETRYABLE'],
        description:
          'The event was applied, changed nothing, is stale or unreadable, or is still pending: ' +
          'only a failed or unmapped one is applied again.',
      },
    },
  }),
] satisfies readonly Route<ManagementDeps>[];
