import { z } from 'zod';
import { API_BASE } from '../../libs/contracts/api-base.js';
import { IdText } from '../../libs/contracts/index.js';
import {
  ReceivedStoreEvent,
  storeEventHeaders,
  type ReceiveStoreEventRequest,
} from '../../libs/contracts/stores/received-store-events.js';
import { MAX_STORE_EVENT_BYTES } from '../../libs/contracts/stores/store-connections.js';
import { defineRoute, readBody, sendData, type Route } from '../../libs/http/index.js';
import { publicErrors } from './requests/form-route.js';
import type { GatewayDeps } from './gateway-deps.js';

/**
 * Paddle waits 5 s for an answer before it counts a delivery failed; the stores service answers
 * once the event is written, well within this.
 */
export const STORE_EVENT_TIMEOUT_MS = 4000;

const StoreEventPath = z.object({
  connection_id: IdText.meta({ description: 'The store connection the store delivers to.' }),
});

const StoreEventHeaders = z.object(
  Object.fromEntries(storeEventHeaders.map((name) => [name, z.string().max(4096).optional()])),
) as z.ZodObject<Record<(typeof storeEventHeaders)[number], z.ZodOptional<z.ZodString>>>;

/**
 * `POST {api_base}/stores/:connection_id/events`: a store's webhook delivery (docs/stores.md).
 * The body is read as bytes, whatever its type, before anything parses it: its signature is over
 * those bytes. One RPC hands them and the signature headers to the stores service, which answers
 * once the event is written; applying it to a license comes after.
 */
export const storeEventRoute: Route<GatewayDeps> = defineRoute<
  GatewayDeps,
  typeof StoreEventPath,
  z.ZodObject<Record<string, never>>,
  typeof StoreEventHeaders
>({
  method: 'post',
  path: `${API_BASE}/stores/:connection_id/events`,
  operationId: 'receiveStoreEvent',
  summary:
    "A store's webhook event (Stripe, Paddle, Lemon Squeezy, WooCommerce), checked against the " +
    "connection's signing secret and recorded once; what it does to a license follows " +
    '(docs/stores.md).',
  tag: 'Stores',
  access: 'public',
  params: StoreEventPath,
  headers: StoreEventHeaders,
  streamedBody: {
    contentType: 'application/json',
    schema: z.string().meta({ description: 'The event exactly as the store sends it.' }),
  },
  success: {
    200: {
      description:
        '`recorded`: written, to be applied; `duplicate`: written before, nothing changed; ' +
        "`ping`: WooCommerce's unsigned ping when a webhook is saved, nothing recorded.",
      data: ReceivedStoreEvent,
    },
  },
  errors: {
    400: {
      codes: ['STORE_SIGNATURE_INVALID', 'INVALID_REQUEST'],
      description:
        'The signature does not verify with the connection’s secret (a tampered body, another ' +
        'secret, a timestamp over 300 s off), or a header over 4096 characters.',
    },
    404: { codes: ['NOT_FOUND'], description: 'No store connection has this id.' },
    408: publicErrors[408],
    413: {
      codes: ['PAYLOAD_TOO_LARGE'],
      description: `The body is over ${MAX_STORE_EVENT_BYTES / 1024} KiB.`,
    },
    415: publicErrors[415],
    500: publicErrors.internal,
  },
  before: ({ bodyLimits }) => [
    readBody({ maxBytes: MAX_STORE_EVENT_BYTES, timeoutMs: bodyLimits.timeoutMs }),
  ],
  handle: async ({ params, headers }, { transport }, req, res) => {
    const forwarded: ReceiveStoreEventRequest['headers'] = {};
    for (const name of storeEventHeaders) {
      if (headers[name] !== undefined) forwarded[name] = headers[name];
    }
    const received = await transport.call(
      'stores.receiveEvent',
      {
        connection_id: params.connection_id,
        body: (req.body as Buffer).toString('base64'),
        headers: forwarded,
      },
      { timeoutMs: STORE_EVENT_TIMEOUT_MS },
    );
    sendData(res, received);
  },
});
