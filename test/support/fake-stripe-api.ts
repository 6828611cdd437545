import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StripeEndpoint } from '../../services/stores/applying/stripe-store-api.js';

const LINE_ITEMS = /^\/v1\/checkout\/sessions\/([^/?]+)\/line_items(?:\?|$)/;

/**
 * Stripe's API on loopback, as far as a Checkout Session's line items go
 * (`GET /v1/checkout/sessions/{id}/line_items`): each session's items are the prices `prices`
 * gives it, answered as Stripe lists them, to the API key `apiKey` alone; anything else as Stripe
 * answers it (401 for another key, 404 for an unknown session or path).
 */
export async function fakeStripeApi(
  apiKey: string,
  prices: (sessionId: string) => string[] | null,
) {
  const seen: Array<{ url: string; authorization: string | undefined }> = [];
  const server = createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const error = (status: number, message: string, code?: string) =>
      answer(status, { error: { type: 'invalid_request_error', message, ...(code && { code }) } });
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return error(401, 'Invalid API Key provided.');
    }
    const sessionId = LINE_ITEMS.exec(req.url ?? '')?.[1];
    const items = sessionId === undefined || req.method !== 'GET' ? null : prices(sessionId);
    if (items === null) {
      return error(404, `No such checkout.session: '${sessionId ?? ''}'`, 'resource_missing');
    }
    answer(200, {
      object: 'list',
      url: `/v1/checkout/sessions/${sessionId!}/line_items`,
      has_more: false,
      data: items.map((price, i) => ({
        id: `li_${i + 1}`,
        object: 'item',
        quantity: 1,
        price: { id: price, object: 'price' },
      })),
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint: StripeEndpoint = {
    host: '127.0.0.1',
    port: (server.address() as AddressInfo).port,
    protocol: 'http',
  };
  return {
    endpoint,
    /** The requests it was sent: their path and query, and the API key they carried. */
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
