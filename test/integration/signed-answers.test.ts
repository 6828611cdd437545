import { createHash, createPublicKey, verify } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { verifyMessage } from 'http-message-signatures/lib/httpbis/index.js';
import { LicensingClient } from '../../libs/client/src/index.js';
import request from 'supertest';
import { generateSigningKey } from '../../libs/config/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { verificationKeys } from '../../libs/signatures/index.js';
import { InProcessBus, InProcessTransport } from '../../libs/transport/index.js';
import { createGatewayApp } from '../../services/gateway/app.js';
import { createRateLimits } from '../../services/gateway/rate-limits/rate-limits.js';
import {
  newNonce,
  signatureProblem,
  signed,
  type Answer,
  type SentRequest,
} from '../support/signed-answers.js';
import { createVersion, packageBytes, uploadFile } from '../support/packages.js';
import { API_BASE, bootSystem, testSigning, type TestSystem } from '../support/system.js';

/**
 * Signed answers (docs/api-decisions.md, "Signed answers"): every answer of activate, validate,
 * deactivate, checkout, the portal's license data and the update check, successes and errors
 * alike, is signed over its status, its Content-Digest, the request's method, path and query and
 * the client's nonce, by the key the gateway publishes at GET {api_base}/keys. Checked as the
 * reference client checks them (libs/signatures) and, once, by an independent implementation.
 */

let system: TestSystem;
let keySet: { keys: Array<{ kid: string; x: string }> };
beforeAll(async () => {
  system = await bootSystem({ SIGNATURE_TTL_SECONDS: '120' });
  keySet = (await system.api().get(`${API_BASE}/keys`)).body;
});
afterAll(() => system?.stop());

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** A call of the public API as a client sends it, with a nonce when given. */
async function call(
  sent: SentRequest & { fields?: Record<string, string> },
  nonce: string | null = null,
): Promise<request.Response> {
  let req =
    sent.method === 'GET'
      ? system.api().get(sent.target)
      : system
          .api()
          .post(sent.target)
          .type('form')
          .send(form(sent.fields ?? {}));
  if (nonce !== null) req = req.set('Licensing-Nonce', nonce);
  return req;
}

const asAnswer = (res: request.Response): Answer => ({
  status: res.status,
  headers: res.headers as Answer['headers'],
  text: res.text,
});

describe('the key set (GET {api_base}/keys)', () => {
  test('the signing key as a JWK Set named by its thumbprint, cacheable for an hour, unsigned', async () => {
    const res = await system.api().get(`${API_BASE}/keys`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/jwk-set\+json/);
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.headers.signature).toBeUndefined();
    expect(res.body.keys).toHaveLength(1);
    // A key is kept only when its kid is its RFC 7638 thumbprint.
    expect([...(await verificationKeys(res.body)).keys()]).toEqual([res.body.keys[0].kid]);
    expect(res.body.keys[0]).toMatchObject({
      kty: 'OKP',
      crv: 'Ed25519',
      use: 'sig',
      alg: 'EdDSA',
    });
  });
});

describe('every answer of a signed route is signed, successes and errors alike', () => {
  let key: string;
  let productId: number;
  beforeAll(async () => {
    const issued = await system.license({ activation_limit: 0 });
    key = issued.key;
    productId = issued.product.id;
  });
  const licenses = `${API_BASE}/licenses`;
  const activated = (identifier: string) =>
    system.post('activate', { license_key: key, identifier });

  const cases: Array<{
    name: string;
    sent: () => SentRequest & { fields?: Record<string, string> };
    status: number;
    before?: () => Promise<unknown>;
  }> = [
    {
      name: 'activate',
      sent: () => ({
        method: 'POST',
        target: `${licenses}/activate`,
        fields: { license_key: key, identifier: 'signed.example' },
      }),
      status: 200,
    },
    {
      name: 'activate, unknown key',
      sent: () => ({
        method: 'POST',
        target: `${licenses}/activate`,
        fields: { license_key: 'no-such-key', identifier: 'signed.example' },
      }),
      status: 403,
    },
    {
      name: 'activate, no identifier',
      sent: () => ({ method: 'POST', target: `${licenses}/activate`, fields: { dlid: key } }),
      status: 400,
    },
    {
      name: 'validate',
      sent: () => ({
        method: 'POST',
        target: `${licenses}/validate`,
        fields: { license_key: key },
      }),
      status: 200,
    },
    {
      name: 'validate, another product',
      sent: () => ({
        method: 'POST',
        target: `${licenses}/validate`,
        fields: { license_key: key, product_id: String(productId + 1000) },
      }),
      status: 403,
    },
    {
      name: 'deactivate',
      before: () => activated('gone.example'),
      sent: () => ({
        method: 'POST',
        target: `${licenses}/deactivate`,
        fields: { license_key: key, identifier: 'gone.example' },
      }),
      status: 200,
    },
    {
      name: 'deactivate, not activated',
      sent: () => ({
        method: 'POST',
        target: `${licenses}/deactivate`,
        fields: { license_key: key, identifier: 'never.example' },
      }),
      status: 404,
    },
    {
      name: 'checkout',
      before: () => activated('offline.example'),
      sent: () => ({
        method: 'POST',
        target: `${licenses}/checkout`,
        fields: { license_key: key, identifier: 'offline.example', product_id: String(productId) },
      }),
      status: 200,
    },
    {
      name: 'checkout, not activated',
      sent: () => ({
        method: 'POST',
        target: `${licenses}/checkout`,
        fields: { license_key: key, identifier: 'never.example', product_id: String(productId) },
      }),
      status: 404,
    },
    {
      name: "the portal's license data",
      sent: () => ({
        method: 'POST',
        target: `${API_BASE}/portal/license`,
        fields: { license_key: key },
      }),
      status: 200,
    },
    {
      name: "the portal's license data, unknown key",
      sent: () => ({
        method: 'POST',
        target: `${API_BASE}/portal/license`,
        fields: { license_key: 'no-such-key' },
      }),
      status: 403,
    },
    {
      name: 'the update check',
      sent: () => ({ method: 'GET', target: `${API_BASE}/updates/${productId}` }),
      status: 200,
    },
    {
      name: 'the update check with a key and a query of its own',
      sent: () => ({
        method: 'GET',
        target: `${API_BASE}/updates/${productId}?dlid=${key}&version=1.0%202`,
      }),
      status: 200,
    },
  ];

  describe.each([
    ['without a nonce', false],
    ['with a nonce, echoed and covered', true],
  ])('%s', (_how, withNonce) => {
    test.each(cases)('$name ($status)', async ({ sent, status, before }) => {
      await before?.();
      const nonce = withNonce ? newNonce() : null;
      const res = await call(sent(), nonce);
      expect(res.status).toBe(status);
      expect(await signatureProblem(asAnswer(res), sent(), keySet, nonce)).toBeNull();
      // Bound to its request: no cache keeps it for another.
      expect(res.headers['cache-control']).toBe('no-store');
    });
  });

  test('the signature names the published key and expires SIGNATURE_TTL_SECONDS after it was made', async () => {
    const before = Math.floor(Date.now() / 1000);
    const res = await call(cases[3]!.sent());
    const after = Math.ceil(Date.now() / 1000);
    const read = signed(asAnswer(res));
    if (typeof read === 'string') throw new Error(read);
    expect(read.params.keyid).toBe(keySet.keys[0]!.kid);
    expect(read.params.created).toBeGreaterThanOrEqual(before);
    expect(read.params.created).toBeLessThanOrEqual(after);
    expect(read.params.expires - read.params.created).toBe(120);
  });

  test('an answer holding characters outside ASCII is digested and signed over its UTF-8 bytes', async () => {
    const title = `Café Ünïcode ✓ ${newNonce()}`;
    const product = await system.transport.call('update-catalog.createProduct', { title });
    const version = await createVersion(system, product.id, '2.0.0', {
      release_notes: 'Corrigé : « ça marche » — 🎉',
    });
    await uploadFile(system, version.id, packageBytes(64), 'café.zip');
    const target = `${API_BASE}/updates/${product.id}`;
    const nonce = newNonce();
    const res = await fetch(`${system.running.gatewayUrl}${target}`, {
      headers: { 'licensing-nonce': nonce },
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const text = bytes.toString('utf8');
    expect(res.status).toBe(200);
    expect(JSON.parse(text).data).toMatchObject({
      name: title,
      release_notes: 'Corrigé : « ça marche » — 🎉',
    });
    expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
    const digest = createHash('sha256').update(bytes).digest('base64');
    expect(res.headers.get('content-digest')).toBe(`sha-256=:${digest}:`);
    const answer: Answer = {
      status: res.status,
      headers: Object.fromEntries(res.headers),
      text,
    };
    expect(await signatureProblem(answer, { method: 'GET', target }, keySet, nonce)).toBeNull();
  });

  test('an answer given to another request, nonce or body does not verify', async () => {
    const sent = cases[3]!.sent();
    const nonce = newNonce();
    const answer = asAnswer(await call(sent, nonce));
    expect(await signatureProblem(answer, sent, keySet, nonce)).toBeNull();
    const elsewhere = { ...sent, target: `${licenses}/activate` };
    expect(await signatureProblem(answer, elsewhere, keySet, nonce)).toBe(
      'the signature does not verify',
    );
    expect(
      await signatureProblem(answer, { ...sent, target: `${sent.target}?x=1` }, keySet, nonce),
    ).toBe('the signature does not verify');
    expect(await signatureProblem(answer, sent, keySet, newNonce())).toMatch(/^the nonce echoed/);
    const otherBody = { ...answer, text: answer.text.replace('"valid":true', '"valid":false') };
    expect(await signatureProblem(otherBody, sent, keySet, nonce)).toBe(
      'the digest is not the body',
    );
    expect(await signatureProblem({ ...answer, status: 500 }, sent, keySet, nonce)).toBe(
      'the signature does not verify',
    );
    expect(await signatureProblem(answer, sent, { keys: [] }, nonce)).toMatch(/^no published key/);
  });

  test('an update check whose path is not valid percent-encoding is answered, signed too', async () => {
    const sent = { method: 'GET', target: `${API_BASE}/updates/%E0%A4%A` };
    const res = await call(sent);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ update_available: false, download_requires: null });
    expect(await signatureProblem(asAnswer(res), sent, keySet)).toBeNull();
  });

  test('downloads are not signed', async () => {
    const res = await system
      .api()
      .get(`${API_BASE}/downloads/${productId}?dlid=${key}`)
      .set('Accept', 'application/json')
      .set('Licensing-Nonce', newNonce());
    expect(res.status).toBe(404);
    expect(res.headers.signature).toBeUndefined();
    expect(res.headers['content-digest']).toBeUndefined();
  });
});

describe('the nonce', () => {
  test.each([
    ['too short', 'abc'],
    ['too long', 'n'.repeat(129)],
    ['not base64url', 'a nonce with spaces!'],
    ['base64 padding', 'AAAAAAAAAAAAAAAAAAAA=='],
    ['empty', ''],
  ])(
    'a nonce %s is refused with 400 INVALID_REQUEST, signed without it, changing nothing',
    async (_why, nonce) => {
      const { key } = await system.license();
      for (const sent of [
        { method: 'POST', target: `${API_BASE}/licenses/validate`, fields: { license_key: key } },
        { method: 'GET', target: `${API_BASE}/updates/1` },
      ]) {
        const res = await call(sent, nonce);
        expect([sent.target, res.status, res.body.error?.code]).toEqual([
          sent.target,
          400,
          'INVALID_REQUEST',
        ]);
        expect(res.body.error.message).toMatch(/Licensing-Nonce/);
        expect(res.headers['licensing-nonce']).toBeUndefined();
        expect(await signatureProblem(asAnswer(res), sent, keySet, null)).toBeNull();
      }
      const license = await system.transport.call('license.getLicense', { license_key: key });
      expect(license.check_count).toBe(0);
    },
  );

  test('a nonce of 16 and of 128 base64url characters is taken', async () => {
    const { key } = await system.license();
    for (const nonce of ['A-_'.repeat(5) + 'z', 'x'.repeat(128)]) {
      const sent = {
        method: 'POST',
        target: `${API_BASE}/licenses/validate`,
        fields: { license_key: key },
      };
      const res = await call(sent, nonce);
      expect(res.status).toBe(200);
      expect(await signatureProblem(asAnswer(res), sent, keySet, nonce)).toBeNull();
    }
  });
});

describe("the request's Content-Digest (RFC 9530): the answer is bound to the form fields sent", () => {
  const digestOf = (body: string) =>
    `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;

  test("a body that matches its Content-Digest is answered, and the signature covers the request's digest", async () => {
    const { key } = await system.license();
    const body = form({ license_key: key });
    const sent = {
      method: 'POST',
      target: `${API_BASE}/licenses/validate`,
      contentDigest: digestOf(body),
    };
    const nonce = newNonce();
    const res = await system
      .api()
      .post(sent.target)
      .type('form')
      .set('Content-Digest', sent.contentDigest)
      .set('Licensing-Nonce', nonce)
      .send(body);
    expect(res.status).toBe(200);
    const answer = asAnswer(res);
    expect(await signatureProblem(answer, sent, keySet, nonce)).toBeNull();
    expect(res.headers['signature-input']).toContain('"content-digest";req');
    // The same answer does not pass for a request with other fields (another key's).
    const otherFields = { ...sent, contentDigest: digestOf(form({ license_key: `${key}x` })) };
    expect(await signatureProblem(answer, otherFields, keySet, nonce)).toBe(
      'the signature does not verify',
    );
  });

  test('a body that does not match its Content-Digest is refused with 400 INVALID_REQUEST, changing nothing', async () => {
    const { key } = await system.license();
    const sent = {
      method: 'POST',
      target: `${API_BASE}/licenses/validate`,
      contentDigest: digestOf(form({ license_key: 'another-key' })),
    };
    const res = await system
      .api()
      .post(sent.target)
      .type('form')
      .set('Content-Digest', sent.contentDigest)
      .send(form({ license_key: key }));
    expect([res.status, res.body.error?.code]).toEqual([400, 'INVALID_REQUEST']);
    expect(res.body.error.message).toMatch(/Content-Digest/);
    // Signed, without covering a digest the body did not match: a client that sent the digest
    // of its own fields takes this answer for what it is, a request altered on its way.
    const { contentDigest: _unchecked, ...withoutDigest } = sent;
    expect(await signatureProblem(asAnswer(res), withoutDigest, keySet)).toBeNull();
    expect(await signatureProblem(asAnswer(res), sent, keySet)).toMatch(/does not cover/);
    const license = await system.transport.call('license.getLicense', { license_key: key });
    expect(license.check_count).toBe(0);
  });

  test('a Content-Digest without a sha-256 member is not checked, and not covered', async () => {
    const { key } = await system.license();
    const sent = { method: 'POST', target: `${API_BASE}/licenses/validate` };
    const res = await system
      .api()
      .post(sent.target)
      .type('form')
      .set('Content-Digest', 'sha-512=:AAAA:')
      .send(form({ license_key: key }));
    expect(res.status).toBe(200);
    expect(res.headers['signature-input']).not.toContain('"content-digest";req');
    expect(await signatureProblem(asAnswer(res), sent, keySet)).toBeNull();
  });
});

describe('browsers (the reference client runs in them)', () => {
  test('may send Licensing-Nonce and Content-Digest and read the headers of a signed answer', async () => {
    const preflight = await request(system.running.gatewayUrl)
      .options(`${API_BASE}/licenses/validate`)
      .set('Origin', 'https://shop.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'licensing-nonce, content-digest');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/\bLicensing-Nonce\b/);
    expect(preflight.headers['access-control-allow-headers']).toMatch(/\bContent-Digest\b/);
    const res = await system
      .api()
      .get(`${API_BASE}/updates/1`)
      .set('Origin', 'https://shop.example');
    const exposed = String(res.headers['access-control-expose-headers']).split(/,\s*/);
    expect(exposed).toEqual(
      expect.arrayContaining(['Signature', 'Signature-Input', 'Content-Digest', 'Licensing-Nonce']),
    );
  });
});

describe('an independent implementation (http-message-signatures, Node crypto) checks an answer', () => {
  test('the Content-Digest is the body, and the signature verifies under the published key', async () => {
    const { key } = await system.license();
    const nonce = newNonce();
    const target = `${API_BASE}/licenses/validate?from=client`;
    const res = await call(
      { method: 'POST', target, fields: { license_key: key, identifier: 'a.example' } },
      nonce,
    );
    expect(res.status).toBe(200);
    const digest = createHash('sha256').update(res.text).digest('base64');
    expect(res.headers['content-digest']).toBe(`sha-256=:${digest}:`);
    const published = keySet.keys[0]!;
    const publicKey = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: published.x },
      format: 'jwk',
    });
    const verified = await verifyMessage(
      {
        keyLookup: async (params) =>
          params.keyid === published.kid
            ? {
                id: published.kid,
                algs: ['ed25519'],
                verify: async (data: Buffer, signature: Buffer) =>
                  verify(null, data, publicKey, signature),
              }
            : null,
      },
      {
        status: res.status,
        headers: {
          'content-digest': res.headers['content-digest'] as string,
          'licensing-nonce': res.headers['licensing-nonce'] as string,
          'signature-input': res.headers['signature-input'] as string,
          signature: res.headers.signature as string,
        },
      },
      { method: 'POST', url: `${system.running.gatewayUrl}${target}`, headers: {} },
    );
    expect(verified).toBe(true);
  });
});

describe('the reference client (libs/client), with the published keys pinned', () => {
  test('accepts every answer, refusals included, and the license file it checks out', async () => {
    const { key, product } = await system.license();
    const client = new LicensingClient(system.running.gatewayUrl, product.id, { keys: keySet });
    expect(await client.activate(key, 'https://www.client.example/')).toMatchObject({
      success: true,
      data: { identifier: 'client.example' },
    });
    expect(await client.validate(key, 'client.example')).toMatchObject({ success: true });
    expect(await client.checkUpdate(key)).toMatchObject({ success: true });
    const file = await client.checkout(key, 'client.example', 600);
    if (!file.success) throw new Error(`${file.code}: ${file.message}`);
    expect(
      await client.verifyLicenseFile(file.data.license_file, { identifier: 'client.example' }),
    ).toMatchObject({
      success: true,
      data: { identifier: 'client.example', product_id: product.id },
    });
    expect(await client.deactivate(key, 'client.example')).toMatchObject({ success: true });
    // A refusal is verified too: the client reports the server's code, not a bad signature.
    expect(await client.deactivate(key, 'client.example')).toMatchObject({
      success: false,
      code: 'ACTIVATION_NOT_FOUND',
    });
  });
});

describe('key rotation: the first key signs, every key configured is published', () => {
  test('an answer signed before a rotation still verifies after it', async () => {
    const [next, previous] = [generateSigningKey(), generateSigningKey()];
    const before = await bootSystem({ SIGNING_KEY: previous });
    let old: { answer: Answer; sent: SentRequest };
    try {
      const { key } = await before.license();
      const sent = { method: 'POST', target: `${API_BASE}/licenses/validate` };
      const res = await before
        .api()
        .post(sent.target)
        .type('form')
        .send(form({ license_key: key }));
      old = { answer: asAnswer(res), sent };
    } finally {
      await before.stop();
    }
    const rotated = await bootSystem({ SIGNING_KEY: `${next}${previous}` });
    try {
      const keys = (await rotated.api().get(`${API_BASE}/keys`)).body;
      expect(keys.keys).toHaveLength(2);
      const { key } = await rotated.license();
      const sent = { method: 'POST', target: `${API_BASE}/licenses/validate` };
      const res = await rotated
        .api()
        .post(sent.target)
        .type('form')
        .send(form({ license_key: key }));
      const read = signed(asAnswer(res));
      if (typeof read === 'string') throw new Error(read);
      expect(read.params.keyid).toBe(keys.keys[0].kid);
      expect(await signatureProblem(asAnswer(res), sent, keys)).toBeNull();
      // Signed by the previous key, which the rotated gateway still publishes (second).
      const oldRead = signed(old.answer);
      if (typeof oldRead === 'string') throw new Error(oldRead);
      expect(oldRead.params.keyid).toBe(keys.keys[1].kid);
      expect(await signatureProblem(old.answer, old.sent, keys)).toBeNull();
      // Without the previous key published, it would not.
      expect(await signatureProblem(old.answer, old.sent, { keys: [keys.keys[0]] })).toMatch(
        /^no published key/,
      );
    } finally {
      await rotated.stop();
    }
  });
});

describe('refusals of the body reader and the rate limits, and failures, are signed', () => {
  const logger = createLogger('signed-answers-test', 'silent');
  let server: Server;
  let url: string;
  let stubKeySet: unknown;
  let transport: InProcessTransport;
  beforeAll(async () => {
    const bus = new InProcessBus();
    bus.register('license', {
      'license.validate': async () => {
        throw new Error('a failure of the license service');
      },
    });
    transport = new InProcessTransport(bus, { timeoutMs: 2000, logger });
    const signing = await testSigning();
    stubKeySet = signing.signer.keySet;
    const app = createGatewayApp({
      transport,
      logger,
      trustProxy: false,
      requestTimeoutMs: 300,
      signing,
      rateLimits: createRateLimits({
        perIpPerMinute: 100,
        updatesPerMinute: 1,
        downloadsPerMinute: 100,
        activationsPerKeyPerHour: 100,
        redisPrefix: 'unused',
      }),
    });
    // A server without a request timeout of its own: the body reader's is the one met.
    server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await transport?.close();
  });

  const validate = { method: 'POST', target: `${API_BASE}/licenses/validate` };

  /** The raw answer to raw bytes, read until the server closes the connection. */
  function raw(text: string): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const socket = connect(Number(new URL(url).port), '127.0.0.1');
      const chunks: Buffer[] = [];
      socket.on('data', (chunk: Buffer) => chunks.push(chunk));
      socket.on('error', () => {});
      socket.on('close', () => {
        const all = Buffer.concat(chunks).toString('utf8');
        const [head = '', ...body] = all.split('\r\n\r\n');
        const [statusLine = '', ...lines] = head.split('\r\n');
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]);
        if (!status) return reject(new Error(`no answer: ${all}`));
        const headers: Answer['headers'] = {};
        for (const line of lines) {
          const colon = line.indexOf(':');
          headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
        }
        resolve({ status, headers, text: body.join('\r\n\r\n') });
      });
      socket.write(text);
    });
  }

  test('413: a body over the limit, refused before it is read', async () => {
    const res = await request(url)
      .post(validate.target)
      .type('form')
      .send(`license_key=${'k'.repeat(20_000)}`);
    expect(res.status).toBe(413);
    expect(await signatureProblem(asAnswer(res), validate, stubKeySet)).toBeNull();
  });

  test('415: a body in an encoding the gateway cannot read', async () => {
    const nonce = newNonce();
    const res = await request(url)
      .post(validate.target)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .set('Content-Encoding', 'x-foo')
      .set('Licensing-Nonce', nonce)
      .send('license_key=k');
    expect(res.status).toBe(415);
    expect(await signatureProblem(asAnswer(res), validate, stubKeySet, nonce)).toBeNull();
  });

  test('408: a body that stops arriving', async () => {
    const answer = await raw(
      `POST ${validate.target} HTTP/1.1\r\nHost: x\r\n` +
        'Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 50\r\n\r\nlicense_key=',
    );
    expect(answer.status).toBe(408);
    expect(await signatureProblem(answer, validate, stubKeySet)).toBeNull();
  });

  test('400: a body that is not UTF-8', async () => {
    const res = await request(url)
      .post(validate.target)
      .set('Content-Type', 'application/x-www-form-urlencoded')
      .send(Buffer.from([0x6b, 0x3d, 0xff]));
    expect(res.status).toBe(400);
    expect(await signatureProblem(asAnswer(res), validate, stubKeySet)).toBeNull();
  });

  test('500: a failure of the service behind the gateway', async () => {
    const nonce = newNonce();
    const res = await request(url)
      .post(validate.target)
      .type('form')
      .set('Licensing-Nonce', nonce)
      .send('license_key=k');
    expect([res.status, res.body.error?.code]).toEqual([500, 'INTERNAL_ERROR']);
    expect(await signatureProblem(asAnswer(res), validate, stubKeySet, nonce)).toBeNull();
  });

  test('429: the rate limit of the update check', async () => {
    const check = { method: 'GET', target: `${API_BASE}/updates/abc` };
    const first = await request(url).get(check.target);
    expect(first.status).toBe(200);
    const nonce = newNonce();
    const res = await request(url).get(check.target).set('Licensing-Nonce', nonce);
    expect([res.status, res.body.error?.code]).toEqual([429, 'RATE_LIMITED']);
    expect(res.headers['retry-after']).toBeDefined();
    expect(await signatureProblem(asAnswer(res), check, stubKeySet, nonce)).toBeNull();
  });
});
