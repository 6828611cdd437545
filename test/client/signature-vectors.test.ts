import { readFileSync } from 'node:fs';
import { jest } from '@jest/globals';
import { LicensingClient, verifyLicenseFile } from '../../libs/client/src/index.js';
import { fromBase64 } from '../../libs/signatures/index.js';
import {
  signatureVectors,
  vectorsText,
  type SignatureVectors,
} from '../../libs/signatures/vectors/signature-vectors.js';
import type { AnswerVector } from '../../libs/signatures/vectors/answer-vectors.js';

/**
 * The signature vectors every client must pass (libs/signatures/vectors): the committed file is
 * what libs/signatures makes now, and the TypeScript client, sending each vector's request,
 * trusts or refuses its answer as the vector says. The PHP client reads the same file
 * (libs/client-php/tests/Vectors).
 */
const FILE = new URL('../../libs/signatures/vectors/signature-vectors.json', import.meta.url);
const committed = readFileSync(FILE, 'utf8');
const vectors = JSON.parse(committed) as SignatureVectors;

afterEach(() => jest.restoreAllMocks());

test('the committed vectors are what libs/signatures makes now (write-vectors.ts)', async () => {
  expect(committed).toBe(vectorsText(await signatureVectors()));
});

test('the vectors cover answers to trust and to refuse, and license files of each kind', () => {
  const names = vectors.answers.filter((v) => v.expect === 'refuse').map((v) => v.name);
  expect(names).toEqual(
    expect.arrayContaining(['tampered-body', 'moved-nonce', 'other-nonce', 'other-key']),
  );
  expect(names).toEqual(expect.arrayContaining(['wrong-digest', 'expired']));
  expect(vectors.answers.some((v) => v.expect === 'accept')).toBe(true);
  const files = vectors.license_files.map((v) => v.name);
  expect(files).toEqual(expect.arrayContaining(['good', 'tampered', 'other-key', 'expired-lease']));
});

/** The client's call that sends the vector's request, with its fields. */
function call(client: LicensingClient, vector: AnswerVector) {
  const url = new URL(vector.request.url);
  if (vector.request.method === 'GET') {
    const channel = url.searchParams.get('channel') ?? undefined;
    return client.checkUpdate(url.searchParams.get('license_key') ?? undefined, {
      channel: channel as 'beta',
    });
  }
  const fields = new URLSearchParams(vector.request.body ?? '');
  const key = fields.get('license_key') ?? '';
  const identifier = fields.get('identifier') ?? '';
  return url.pathname.endsWith('/licenses/activate')
    ? client.activate(key, identifier)
    : client.validate(key, identifier);
}

describe.each(vectors.answers.map((vector) => [vector.name, vector] as const))(
  'answer vector %s',
  (_name, vector) => {
    test(`the TypeScript client ${vector.expect}s it: ${vector.why}`, async () => {
      // The vector's nonce is the one the client draws, so its request is the vector's.
      const nonce = fromBase64(vector.request.nonce)!;
      jest.spyOn(globalThis.crypto, 'getRandomValues').mockImplementation((array) => {
        (array as Uint8Array).set(nonce);
        return array;
      });
      const sent: Array<{ url: string; headers: Headers; body: unknown }> = [];
      const fetcher = async (input: string | URL | Request, init?: RequestInit) => {
        sent.push({ url: String(input), headers: new Headers(init?.headers), body: init?.body });
        const { status, headers, body } = vector.response;
        return new Response(body, { status, headers });
      };
      const product = Number(/\/updates\/(\d+)|$/.exec(vector.request.url)?.[1] ?? 7);
      const client = new LicensingClient('https://shop.example.com', product, {
        keys: vectors.keys,
        fetch: fetcher as typeof fetch,
        now: () => vector.now * 1000,
        clockTolerance: vectors.clock_tolerance * 1000,
        retries: 0,
      });
      const result = await call(client, vector);
      expect(sent).toHaveLength(1);
      expect(sent[0]!.url).toBe(vector.request.url);
      expect(sent[0]!.body ?? null).toBe(vector.request.body);
      expect(sent[0]!.headers.get('licensing-nonce')).toBe(vector.request.nonce);
      expect(sent[0]!.headers.get('content-digest')).toBe(vector.request.content_digest);
      if (vector.expect === 'accept') {
        expect(result.code).not.toBe('SIGNATURE_INVALID');
        expect(result.httpStatus).toBe(vector.response.status);
      } else {
        expect(result).toMatchObject({ success: false, code: 'SIGNATURE_INVALID' });
      }
    });
  },
);

describe.each(vectors.license_files.map((vector) => [vector.name, vector] as const))(
  'license file vector %s',
  (_name, vector) => {
    test(`the TypeScript client ${vector.expect}s it: ${vector.why}`, async () => {
      const result = await verifyLicenseFile(vector.file, {
        keys: vectors.keys,
        productId: vector.product_id,
        identifier: vector.identifier,
        now: vector.now * 1000,
      });
      if (vector.expect === 'accept') expect(result).toMatchObject({ success: true });
      else expect(result).toMatchObject({ success: false, code: vector.code });
    });
  },
);
