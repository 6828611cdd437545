import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  classifyResult,
  isLicenseProblem,
  LicensingClient,
  type ClientOptions,
  type LicensingResult,
} from '../../libs/client/src/index.js';
import { NONCE_PATTERN } from '../../libs/signatures/index.js';
import {
  keySetOf,
  sendJson,
  sendSigned,
  serve,
  signedHeaders,
  signedStore,
  signingKey,
  type LocalServer,
  type SignOverrides,
  type SigningKey,
} from './servers.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/**
 * Verification: with the server's keys pinned, every answer is checked before it is read. The
 * fake servers sign with libs/signatures, as the real server does, or misbehave.
 */
const TIMEOUT_MS = 2000;
const VALID = {
  valid: true,
  status: 'active',
  license_key: 'K',
  product: 'Test Plugin',
  plan: 'Single site',
  activation_type: 'domain',
  activation_limit: 3,
  activations_used: 1,
  expires_at: null,
  identifier_activated: true,
  lease_expires_at: null,
};

let key: SigningKey;
let older: SigningKey;
let stranger: SigningKey;
const servers: LocalServer[] = [];
beforeAll(async () => {
  [key, older, stranger] = await Promise.all([signingKey(), signingKey(), signingKey()]);
});
afterAll(() => Promise.all(servers.map((s) => s.close())));

type Respond = (req: IncomingMessage, res: ServerResponse) => void;

/** A store answering with `respond`, and a client pinning `key` (and the older one). */
async function store(respond: Respond, options: ClientOptions = {}) {
  const server = await serve((req, res) => respond(req, res));
  servers.push(server);
  const client = new LicensingClient(server.url, 12, {
    timeout: TIMEOUT_MS,
    keys: keySetOf(key, older),
    ...options,
  });
  return { server, client };
}

/** Every verified operation of the client. */
const operations: Array<[string, (c: LicensingClient) => Promise<LicensingResult<unknown>>]> = [
  ['activate', (c) => c.activate('K', 'example.com')],
  ['validate', (c) => c.validate('K', 'example.com')],
  ['deactivate', (c) => c.deactivate('K', 'example.com')],
  ['checkUpdate', (c) => c.checkUpdate('K')],
];

const expectRefused = (result: LicensingResult<unknown>, reason: RegExp) => {
  expect(result).toMatchObject({ success: false, data: null, code: 'SIGNATURE_INVALID' });
  expect(result.message).toMatch(/^The server's answer failed verification: /);
  expect(result.message).toMatch(reason);
  expect(classifyResult(result)).toBe('license');
  expect(isLicenseProblem(result)).toBe(true);
};

describe('verification: every call carries a fresh nonce, every answer is checked', () => {
  test('with keys, each request sends its own random Licensing-Nonce (32 base64url characters)', async () => {
    const { server, client } = await store((req, res) =>
      sendSigned(req, res, 200, { data: VALID }, key),
    );
    for (const [, call] of operations) expect((await call(client)).success).toBe(true);
    const nonces = server.requests.map((r) => r.headers['licensing-nonce']);
    expect(nonces).toHaveLength(operations.length);
    for (const nonce of nonces) {
      expect(nonce).toMatch(NONCE_PATTERN);
      expect(nonce).toHaveLength(32);
    }
    expect(new Set(nonces).size).toBe(nonces.length);
  });

  test("with keys, each form it posts carries the Content-Digest of its body (RFC 9530), which the answer's signature binds", async () => {
    const { server, client } = await store((req, res) =>
      sendSigned(req, res, 200, { data: VALID }, key),
    );
    for (const [, call] of operations) expect((await call(client)).success).toBe(true);
    const posted = server.requests.filter((r) => r.method === 'POST');
    expect(posted).toHaveLength(3);
    for (const request of posted) {
      const sha256 = createHash('sha256').update(request.body).digest('base64');
      expect(request.headers['content-digest']).toBe(`sha-256=:${sha256}:`);
    }
    const [check] = server.requests.filter((r) => r.method === 'GET');
    expect(check!.headers).not.toHaveProperty('content-digest');
  });

  test.each(operations)(
    '%s: a signed answer is read as before; an unsigned one is refused and not retried',
    async (_name, call) => {
      const signed = await store((req, res) => sendSigned(req, res, 200, { data: VALID }, key));
      expect(await call(signed.client)).toEqual({
        success: true,
        data: VALID,
        message: '',
        code: '',
        httpStatus: 200,
      });
      const unsigned = await store((_req, res) => sendJson(res, 200, { data: VALID }));
      expectRefused(await call(unsigned.client), /the answer is not signed/);
      expect(unsigned.server.requests).toHaveLength(1);
    },
  );

  test('errors are signed too: a verified refusal is read, a forged one is refused', async () => {
    const refusal = { error: { code: 'LICENSE_INVALID', message: 'Unknown key.' } };
    const signed = await store((req, res) => sendSigned(req, res, 403, refusal, key));
    expect(await signed.client.activate('K', 'a.com')).toMatchObject({
      success: false,
      code: 'LICENSE_INVALID',
      httpStatus: 403,
    });
    const forged = await store((_req, res) => sendJson(res, 403, refusal));
    expectRefused(await forged.client.activate('K', 'a.com'), /not signed/);
  });

  test('a verified RATE_LIMITED is transient with its Retry-After; an unsigned one is refused, not retried', async () => {
    const limited = { error: { code: 'RATE_LIMITED', message: 'Too many requests.' } };
    const signed = await store((req, res) =>
      sendSigned(req, res, 429, limited, key, {}, { 'Retry-After': '30' }),
    );
    const result = await signed.client.validate('K');
    expect(result).toMatchObject({ code: 'RATE_LIMITED', retryAfter: 30 });
    expect(classifyResult(result)).toBe('transient');

    const forged = await store((_req, res) => sendJson(res, 429, limited, { 'Retry-After': '1' }));
    const refused = await forged.client.validate('K');
    expectRefused(refused, /not signed/);
    expect(refused).not.toHaveProperty('retryAfter');
    expect(forged.server.requests).toHaveLength(1);
  });

  test('an answer with nothing readable (an HTML error page) stays "Invalid response from server.": it says nothing', async () => {
    const { client } = await store((_req, res) => {
      res.writeHead(502, { 'Content-Type': 'text/html' });
      res.end('<html><h1>502 Bad Gateway</h1></html>');
    });
    expect(await client.validate('K')).toEqual({
      success: false,
      data: null,
      message: 'Invalid response from server.',
      code: '',
      httpStatus: 502,
    });
  });

  test('without keys the client sends no nonce and checks nothing (as before)', async () => {
    const server = await serve((_req, res) => sendJson(res, 200, { data: VALID }));
    servers.push(server);
    const client = new LicensingClient(server.url, 12, TIMEOUT_MS);
    expect(client.verifying).toBe(false);
    expect(await client.validate('K')).toMatchObject({ success: true, data: VALID });
    expect(server.requests[0]!.headers).not.toHaveProperty('licensing-nonce');
  });
});

describe('verification: what a signature binds', () => {
  test('a tampered body (the Content-Digest and signature of another body) is refused', async () => {
    const { client } = await store((req, res) =>
      sendSigned(req, res, 200, { data: { ...VALID, valid: true } }, key, {
        body: JSON.stringify({ data: { ...VALID, valid: false } }),
      }),
    );
    expectRefused(await client.validate('K'), /body does not match its Content-Digest/);
  });

  test('a tampered body with a Content-Digest recomputed for it is refused: the signature covers the digest', async () => {
    const { client } = await store((req, res) => {
      const original = JSON.stringify({ data: { ...VALID, valid: false } });
      const forged = JSON.stringify({ data: VALID });
      const signedFor = signedHeaders(req, 200, original, key);
      const digest = signedHeaders(req, 200, forged, key)['Content-Digest']!;
      res.writeHead(200, {
        'Content-Type': 'application/json',
        ...signedFor,
        'Content-Digest': digest,
      });
      res.end(forged);
    });
    expectRefused(await client.validate('K'), /signature does not match this answer/);
  });

  test('a tampered status is refused', async () => {
    const refusal = { error: { code: 'INTERNAL_ERROR', message: 'Down.' } };
    const { client } = await store((req, res) =>
      sendSigned(req, res, 503, refusal, key, { status: 403 }),
    );
    expectRefused(await client.activate('K', 'a.com'), /signature does not match this answer/);
  });

  test.each<[string, SignOverrides, (c: LicensingClient) => Promise<LicensingResult<unknown>>]>([
    ['another path', { target: `${API_BASE}/licenses/activate` }, (c) => c.validate('K')],
    ['another method', { method: 'GET' }, (c) => c.validate('K')],
    [
      'another query',
      { target: `${API_BASE}/updates/12?license_key=OTHER` },
      (c) => c.checkUpdate('K'),
    ],
    [
      'no query where the request had one',
      { target: `${API_BASE}/updates/12` },
      (c) => c.checkUpdate('K'),
    ],
  ])('a signature moved to another request (%s) is refused', async (_name, overrides, call) => {
    // The server signs the nonce it received, but for another request.
    const { client } = await store((req, res) =>
      sendSigned(req, res, 200, { data: VALID }, key, overrides),
    );
    expectRefused(await call(client), /signature does not match this answer/);
  });

  test('a signature moved to another request (another nonce: a replayed answer) is refused', async () => {
    let captured: { status: number; headers: Record<string, string>; body: string } | undefined;
    const { client } = await store((req, res) => {
      if (captured) {
        // The first answer again, word for word, for the second request.
        res.writeHead(captured.status, captured.headers);
        res.end(captured.body);
        return;
      }
      const body = JSON.stringify({ data: VALID });
      captured = {
        status: 200,
        headers: {
          'Content-Type': 'application/json',
          ...signedHeaders(req, 200, body, key),
        },
        body,
      };
      res.writeHead(captured.status, captured.headers);
      res.end(body);
    });
    expect((await client.validate('K')).success).toBe(true);
    expectRefused(await client.validate('K'), /does not echo the nonce of this request/);
  });

  test('an answer that covers no nonce is refused: a signature without one could be replayed', async () => {
    const { client } = await store((req, res) =>
      sendSigned(req, res, 200, { data: VALID }, key, { nonce: null }),
    );
    expectRefused(await client.validate('K'), /does not cover "licensing-nonce"/);
  });

  test("an answer signed for another request's form fields (another key's validate) is refused", async () => {
    const another = `sha-256=:${createHash('sha256').update('license_key=OTHER&product_id=12').digest('base64')}:`;
    const { client } = await store((req, res) =>
      sendSigned(req, res, 200, { data: VALID }, key, { requestDigest: another }),
    );
    expectRefused(await client.validate('K'), /signature does not match/);
  });

  test("an answer that does not cover the request's Content-Digest is refused: it could answer any key", async () => {
    const { client } = await store((req, res) =>
      sendSigned(req, res, 200, { data: VALID }, key, { requestDigest: null }),
    );
    expectRefused(await client.validate('K'), /does not cover "content-digest";req/);
  });

  test('an expired signature is refused; one expired within the clock tolerance is accepted', async () => {
    const now = Math.floor(Date.now() / 1000);
    const expired = await store((req, res) =>
      sendSigned(req, res, 200, { data: VALID }, key, { created: now - 3600, expires: now - 600 }),
    );
    expectRefused(await expired.client.validate('K'), /signature expired at /);

    const tolerated = await store((req, res) =>
      sendSigned(req, res, 200, { data: VALID }, key, { created: now - 400, expires: now - 60 }),
    );
    expect((await tolerated.client.validate('K')).success).toBe(true);
    const strict = await store(
      (req, res) =>
        sendSigned(req, res, 200, { data: VALID }, key, { created: now - 400, expires: now - 60 }),
      { clockTolerance: 10_000 },
    );
    expectRefused(await strict.client.validate('K'), /signature expired/);
  });

  test('an answer signed later than the clock allows (created in the future) is refused', async () => {
    const now = Math.floor(Date.now() / 1000);
    const { client } = await store((req, res) =>
      sendSigned(req, res, 200, { data: VALID }, key, { created: now + 3600 }),
    );
    expectRefused(await client.validate('K'), /later than this device's clock/);
  });
});

describe('verification: the pinned keys', () => {
  test('an unknown kid (a key not pinned) is refused', async () => {
    const { client } = await store((req, res) =>
      sendSigned(req, res, 200, { data: VALID }, stranger),
    );
    expectRefused(await client.validate('K'), /signed by a key that is not pinned/);
  });

  test('key rotation: an answer signed by an older key still pinned verifies, one by a key not pinned does not', async () => {
    let signer = older;
    const { client } = await store((req, res) =>
      sendSigned(req, res, 200, { data: VALID }, signer),
    );
    expect((await client.validate('K')).success).toBe(true);
    signer = key;
    expect((await client.validate('K')).success).toBe(true);
    signer = stranger;
    expectRefused(await client.validate('K'), /not pinned/);
  });

  test('a kid that names a pinned key but a signature by another key is refused', async () => {
    const { client } = await store((req, res) =>
      sendSigned(req, res, 200, { data: VALID }, { ...stranger, jwk: key.jwk }),
    );
    expectRefused(await client.validate('K'), /signature does not match/);
  });

  test('only valid keys are pinned: a key set without a usable Ed25519 key verifies nothing', async () => {
    const bogus = {
      keys: [
        { ...key.jwk, kid: 'chosen-name' },
        { kty: 'RSA', kid: 'r' },
      ],
    };
    const { client } = await store((req, res) => sendSigned(req, res, 200, { data: VALID }, key), {
      keys: bogus,
    });
    expectRefused(await client.validate('K'), /none of the pinned keys is a usable Ed25519 key/);
    // A list of JWKs works as well as a set.
    const listed = await store((req, res) => sendSigned(req, res, 200, { data: VALID }, key), {
      keys: [key.jwk],
    });
    expect((await listed.client.validate('K')).success).toBe(true);
  });

  test('keys that are not a JWK Set or a list are a programming error', () => {
    expect(() => new LicensingClient('https://shop.example', 1, { keys: 'x' as never })).toThrow(
      TypeError,
    );
  });

  test('fetchKeys answers the JWK Set the server publishes at GET {api_base}/keys', async () => {
    const server = await signedStore({ productId: 12, key });
    servers.push(server);
    const result = await new LicensingClient(server.url, 12, TIMEOUT_MS).fetchKeys();
    expect(result).toEqual({
      success: true,
      data: { keys: [key.jwk] },
      message: '',
      code: '',
      httpStatus: 200,
    });
    expect(server.requests.at(-1)).toMatchObject({ method: 'GET', path: `${API_BASE}/keys` });
  });
});
