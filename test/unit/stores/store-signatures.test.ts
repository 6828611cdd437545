import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { Paddle } from '@paddle/paddle-node-sdk';
import { checkStoreSignature } from '../../../services/stores/receiving/signatures.js';
import type { StoreDelivery } from '../../../services/stores/receiving/delivery.js';

const secret = 'whsec_current_secret_123';
const previous = 'whsec_previous_secret_456';
const now = new Date('2026-11-28T12:00:00Z');
const seconds = Math.floor(now.getTime() / 1000);
const body = Buffer.from(JSON.stringify({ id: 'evt_1', type: 'invoice.paid', data: {} }));

const delivery = (headers: Record<string, string>, payload = body): StoreDelivery => ({
  body: payload,
  headers,
});
const tampered = Buffer.from(body.toString().replace('invoice.paid', 'invoice.pAid'));

function stripeHeader(timestamp = seconds, key = secret, payload = body): string {
  return Stripe.webhooks.generateTestHeaderString({
    payload: payload.toString(),
    secret: key,
    timestamp,
  });
}

function paddleHeader(timestamp = seconds, keys = [secret], payload = body): string {
  const macs = keys.map(
    (key) =>
      `h1=${createHmac('sha256', key).update(`${timestamp}:`).update(payload).digest('hex')}`,
  );
  return [`ts=${timestamp}`, ...macs].join(';');
}

const hmac = (key: string, payload: Buffer, encoding: 'hex' | 'base64') =>
  createHmac('sha256', key).update(payload).digest(encoding);

describe('Stores: Stripe-Signature is checked by the stripe package on the raw body', () => {
  const check = (header: string, payload = body, secrets = [secret]) =>
    checkStoreSignature('stripe', delivery({ 'stripe-signature': header }, payload), secrets, now);

  test('an event signed as Stripe signs it passes', () => {
    expect(check(stripeHeader())).toEqual({ ok: true, kind: 'event' });
  });
  test('a tampered body, a wrong secret and no header are refused', () => {
    expect(check(stripeHeader(), tampered).ok).toBe(false);
    expect(check(stripeHeader(seconds, 'whsec_someone_else')).ok).toBe(false);
    expect(checkStoreSignature('stripe', delivery({}), [secret], now).ok).toBe(false);
  });
  test('a signature older than 300 s is stale; one 299 s old passes', () => {
    expect(check(stripeHeader(seconds - 301)).ok).toBe(false);
    expect(check(stripeHeader(seconds - 299)).ok).toBe(true);
  });
  test('a signature more than 300 s ahead of now is stale too: an hour, ten years', () => {
    const years = 10 * 365 * 86_400;
    for (const ahead of [301, 3600, years]) {
      expect(check(stripeHeader(seconds + ahead))).toEqual({
        ok: false,
        reason: `Stripe-Signature: signed ${ahead} s ahead of this clock, over 300 s`,
      });
    }
    expect(check(stripeHeader(seconds + 299)).ok).toBe(true);
  });
  test('a header with no t, or two, is refused', () => {
    expect(check(stripeHeader().replace(/^t=\d+,/, '')).ok).toBe(false);
    expect(check(`t=${seconds},${stripeHeader()}`).ok).toBe(false);
  });
  test('during a rotation an event signed with the previous secret passes', () => {
    expect(check(stripeHeader(seconds, previous), body, [secret, previous]).ok).toBe(true);
    expect(check(stripeHeader(seconds, previous), body, [secret]).ok).toBe(false);
  });
});

describe('Stores: Paddle-Signature (ts, h1) is checked with a 300 s window', () => {
  const check = (header: string, payload = body, secrets = [secret], at = now) =>
    checkStoreSignature('paddle', delivery({ 'paddle-signature': header }, payload), secrets, at);

  test("the MAC computed here is the one Paddle's SDK verifier accepts", async () => {
    const fresh = Math.floor(Date.now() / 1000);
    const header = paddleHeader(fresh);
    // Paddle's client sets up the crypto its verifier uses; it sends nothing when made.
    const paddle = new Paddle('pdl_sdbx_apikey_unused');
    expect(await paddle.webhooks.isSignatureValid(body.toString(), secret, header)).toBe(true);
    expect(await paddle.webhooks.isSignatureValid(tampered.toString(), secret, header)).toBe(false);
    expect(check(header, body, [secret], new Date(fresh * 1000)).ok).toBe(true);
  });
  test('a tampered body, a wrong secret, a missing ts or h1 are refused', () => {
    expect(check(paddleHeader(), tampered).ok).toBe(false);
    expect(check(paddleHeader(seconds, ['pdl_ntfset_other_secret'])).ok).toBe(false);
    expect(check(paddleHeader().replace(/^ts=\d+;/, '')).ok).toBe(false);
    expect(check(`ts=${seconds}`).ok).toBe(false);
  });
  test('a signature more than 300 s from now either way is stale', () => {
    expect(check(paddleHeader(seconds - 301)).ok).toBe(false);
    expect(check(paddleHeader(seconds + 301)).ok).toBe(false);
    expect(check(paddleHeader(seconds + 3600)).ok).toBe(false);
    expect(check(paddleHeader(seconds - 120)).ok).toBe(true);
    expect(check(paddleHeader(seconds + 299)).ok).toBe(true);
  });
  test('any of several h1 may match, and any of the connection secrets', () => {
    expect(check(paddleHeader(seconds, ['pdl_ntfset_other_secret', secret])).ok).toBe(true);
    expect(check(paddleHeader(seconds, [previous]), body, [secret, previous]).ok).toBe(true);
  });
});

describe('Stores: Lemon Squeezy X-Signature is the hex HMAC of the body', () => {
  const check = (signature: string, payload = body, secrets = [secret]) =>
    checkStoreSignature(
      'lemonsqueezy',
      delivery({ 'x-signature': signature }, payload),
      secrets,
      now,
    );

  test('the hex HMAC passes; a tampered body, a wrong secret, a base64 MAC are refused', () => {
    expect(check(hmac(secret, body, 'hex'))).toEqual({ ok: true, kind: 'event' });
    expect(check(hmac(secret, body, 'hex'), tampered).ok).toBe(false);
    expect(check(hmac('another_secret_1', body, 'hex')).ok).toBe(false);
    expect(check(hmac(secret, body, 'base64')).ok).toBe(false);
    expect(checkStoreSignature('lemonsqueezy', delivery({}), [secret], now).ok).toBe(false);
  });
});

describe('Stores: WooCommerce X-WC-Webhook-Signature is the base64 HMAC of the body', () => {
  const check = (headers: Record<string, string>, payload = body) =>
    checkStoreSignature('woocommerce', delivery(headers, payload), [secret], now);

  test('the base64 HMAC passes; a tampered body or a hex MAC is refused', () => {
    const signature = hmac(secret, body, 'base64');
    expect(check({ 'x-wc-webhook-signature': signature })).toEqual({ ok: true, kind: 'event' });
    expect(check({ 'x-wc-webhook-signature': signature }, tampered).ok).toBe(false);
    expect(check({ 'x-wc-webhook-signature': hmac(secret, body, 'hex') }).ok).toBe(false);
  });
  test('the unsigned creation ping is recognised as a ping, and nothing else unsigned passes', () => {
    expect(check({}, Buffer.from('webhook_id=42'))).toEqual({ ok: true, kind: 'ping' });
    expect(check({}).ok).toBe(false);
    expect(check({}, Buffer.from('webhook_id=42&order=1')).ok).toBe(false);
    expect(check({ 'x-wc-webhook-signature': 'forged' }, Buffer.from('webhook_id=42')).ok).toBe(
      false,
    );
  });
});
