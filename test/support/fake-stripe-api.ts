import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StripeEndpoint } from '../../services/stores/applying/stripe-store-api.js';

const LINE_ITEMS = /^\/v1\/checkout\/sessions\/([^/?]+)\/line_items(?:\?|$)/;
const INVOICE_PAYMENTS = /^\/v1\/invoice_payments\?(.*)$/;
const INVOICE = /^\/v1\/invoices\/([^/?]+)(?:\?|$)/;

/** The invoices it knows: by id, and the one each payment intent paid. */
export interface FakeInvoices {
  byId?: Record<string, unknown>;
  paidBy?: Record<string, string>;
}

/**
 * Stripe's API on loopback, as far as the stores service reads it: a Checkout Session's line
 * items (`GET /v1/checkout/sessions/{id}/line_items`, the prices `prices` gives it), the invoice a
 * payment intent paid (`GET /v1/invoice_payments?payment[type]=payment_intent&…`) and an invoice
 * (`GET /v1/invoices/{id}`), answered as Stripe answers, to the API key `apiKey` alone; anything
 * else as Stripe answers it (401 for another key, 404 for an unknown session, invoice or path).
 */
export async function fakeStripeApi(
  apiKey: string,
  prices: (sessionId: string) => string[] | null,
  invoices: FakeInvoices = {},
) {
  const seen: Array<{ url: string; authorization: string | undefined }> = [];
  const server = createServer((req, res) => {
    const url = req.url ?? '';
    seen.push({ url, authorization: req.headers.authorization });
    const answer = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const error = (status: number, message: string, code?: string) =>
      answer(status, { error: { type: 'invalid_request_error', message, ...(code && { code }) } });
    const list = (path: string, data: unknown[]) =>
      answer(200, { object: 'list', url: path, has_more: false, data });
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return error(401, 'Invalid API Key provided.');
    }
    if (req.method !== 'GET') return error(404, `Unrecognized request URL (${req.method})`);
    const paymentsQuery = INVOICE_PAYMENTS.exec(url)?.[1];
    if (paymentsQuery !== undefined) {
      const intent = new URLSearchParams(paymentsQuery).get('payment[payment_intent]') ?? '';
      const invoice = invoices.paidBy?.[intent];
      return list(
        '/v1/invoice_payments',
        invoice === undefined
          ? []
          : [{ id: `inpay_${intent}`, object: 'invoice_payment', invoice }],
      );
    }
    const invoiceId = INVOICE.exec(url)?.[1];
    if (invoiceId !== undefined) {
      const invoice = invoices.byId?.[invoiceId];
      if (invoice === undefined) {
        return error(404, `No such invoice: '${invoiceId}'`, 'resource_missing');
      }
      return answer(200, invoice);
    }
    const sessionId = LINE_ITEMS.exec(url)?.[1];
    const items = sessionId === undefined ? null : prices(sessionId);
    if (items === null) {
      return error(404, `No such checkout.session: '${sessionId ?? ''}'`, 'resource_missing');
    }
    list(
      `/v1/checkout/sessions/${sessionId!}/line_items`,
      items.map((price, i) => ({
        id: `li_${i + 1}`,
        object: 'item',
        quantity: 1,
        price: { id: price, object: 'price' },
      })),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint: StripeEndpoint = {
    host: '127.0.0.1',
    port: (server.address() as AddressInfo).port,
    protocol: 'http',
  };
  return {
    endpoint,
    /** Its address, as STRIPE_API_URL names it. */
    url: `http://127.0.0.1:${endpoint.port!}`,
    /** The requests it was sent: their path and query, and the API key they carried. */
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
