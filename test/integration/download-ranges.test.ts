import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LicensingClient } from '../../libs/client/src/index.js';
import { errorStatus, isErrorCode } from '../../libs/contracts/index.js';
import { createVersion, downloadLog, packageBytes, uploadFile } from '../support/packages.js';
import { API_BASE, bootSystem, gatewayOn, type TestSystem } from '../support/system.js';

/**
 * Every form of Range, with GET and with HEAD: a HEAD answers exactly what the GET would, without
 * the body (RFC 9110 9.3.2), and the download log records what the client got. Several ranges in
 * one header get the whole file (docs/api-decisions.md, Downloads).
 */

let system: TestSystem;
beforeAll(async () => {
  // Its package store through S3_ENDPOINT, as redirect mode needs (below).
  system = await bootSystem({}, { ownStore: true });
});
afterAll(() => system?.stop());

const SIZE = 36;
/** Headers a HEAD must answer as its GET does. */
const COMPARED = [
  'content-type',
  'content-length',
  'content-range',
  'content-disposition',
  'accept-ranges',
  'etag',
  'x-checksum-sha256',
  'repr-digest',
] as const;

interface Case {
  range: string;
  status: number;
  contentRange: string | null;
  /** The bytes of the file a GET gets, or the error code of its JSON answer. */
  expected: { slice: [number, number] } | { code: string };
}

const CASES: Case[] = [
  { range: 'bytes=0-9', status: 206, contentRange: 'bytes 0-9/36', expected: { slice: [0, 10] } },
  { range: 'bytes=-5', status: 206, contentRange: 'bytes 31-35/36', expected: { slice: [31, 36] } },
  {
    range: 'bytes=10-',
    status: 206,
    contentRange: 'bytes 10-35/36',
    expected: { slice: [10, 36] },
  },
  {
    range: 'bytes=99-',
    status: 416,
    contentRange: 'bytes */36',
    expected: { code: 'RANGE_NOT_SATISFIABLE' },
  },
  { range: 'bytes=0-1,5-6', status: 200, contentRange: null, expected: { slice: [0, 36] } },
];

/** What each client got: 'served', or the status and (after a GET) the error code. */
const got: string[] = [];

/** An entry of the download log as a client would see it: its code's status beside the code. */
function asAnswer(entry: Record<string, unknown>, method: 'GET' | 'HEAD'): string {
  if (entry.outcome === 'served') return 'served';
  const code = String(entry.reason);
  const status = isErrorCode(code) ? errorStatus[code] : 'unknown';
  return method === 'GET' ? `${status} ${code}` : `${status} (HEAD)`;
}

async function send(url: string, method: 'GET' | 'HEAD', range: string) {
  const res = await fetch(url, { method, headers: { accept: 'application/json', range } });
  const body = Buffer.from(await res.arrayBuffer());
  const headers = Object.fromEntries(COMPARED.map((name) => [name, res.headers.get(name)]));
  const code =
    method === 'GET' && headers['content-type']?.startsWith('application/json')
      ? (JSON.parse(body.toString('utf8')) as { error: { code: string } }).error.code
      : null;
  got.push(res.status >= 400 ? `${res.status} ${code ?? '(HEAD)'}` : 'served');
  return { status: res.status, headers, body };
}

describe.each(CASES)('Range: $range', ({ range, status, contentRange, expected }) => {
  let url: string;
  let productId: number;
  let bytes: Buffer;
  beforeAll(async () => {
    got.length = 0;
    const { product, key } = await system.license();
    productId = product.id;
    const version = await createVersion(system, product.id, '1.0.0');
    bytes = packageBytes(SIZE);
    await uploadFile(system, version.id, bytes, 'plugin.zip');
    url = `${system.running.gatewayUrl}${API_BASE}/downloads/${product.id}?dlid=${key}`;
  });

  test(`GET answers ${status}`, async () => {
    const res = await send(url, 'GET', range);
    expect([res.status, res.headers['content-range']]).toEqual([status, contentRange]);
    if ('slice' in expected) {
      const [start, end] = expected.slice;
      expect(res.body.equals(bytes.subarray(start, end))).toBe(true);
      expect(res.headers['content-length']).toBe(String(end - start));
    } else {
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(res.body.toString('utf8'))).toMatchObject({
        error: { code: expected.code },
      });
    }
  });

  test('HEAD answers what GET does, without the body', async () => {
    const get = await send(url, 'GET', range);
    const head = await send(url, 'HEAD', range);
    expect({ status: head.status, headers: head.headers }).toEqual({
      status: get.status,
      headers: get.headers,
    });
    expect(head.body.length).toBe(0);
  });

  test('the download log records what the client got', async () => {
    const { entries } = await downloadLog(system, { product_id: productId });
    // The GET and HEAD of the tests above, and the GET the HEAD test compared with, oldest first.
    const methods = ['GET', 'GET', 'HEAD'] as const;
    expect(entries.reverse().map((entry, i) => asAnswer(entry, methods[i] ?? 'GET'))).toEqual(got);
    expect(entries.map((e) => e.reason)).toEqual(
      Array(3).fill('code' in expected ? expected.code : null),
    );
  });
});

/**
 * DOWNLOAD_DELIVERY=redirect, on a gateway of its own over the same services: after the same
 * decision and log entry, GET and HEAD alike get a 302 to the object, whatever their Range; the
 * store answers the Range itself (docs/api-decisions.md). The store here is s3rver reached
 * through S3_ENDPOINT, which reads only single `a-b` and `a-` ranges, so only those are followed.
 */
describe('redirect mode', () => {
  let server: Server;
  let gatewayUrl: string;
  let productId: number;
  let key: string;
  let bytes: Buffer;
  beforeAll(async () => {
    const app = await gatewayOn(system.transport, { downloadDelivery: 'redirect' });
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    gatewayUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const licensed = await system.license();
    productId = licensed.product.id;
    key = licensed.key;
    const version = await createVersion(system, productId, '1.0.0');
    bytes = packageBytes(SIZE);
    await uploadFile(system, version.id, bytes, 'plugin.zip');
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  const urlOf = (query: string) => `${gatewayUrl}${API_BASE}/downloads/${productId}?${query}`;

  test.each(CASES)(
    '$range: GET and HEAD both answer 302 to the object, logged as served',
    async ({ range }) => {
      const before = (await downloadLog(system, { product_id: productId })).total;
      const answers = [];
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await fetch(urlOf(`dlid=${key}`), {
          method,
          redirect: 'manual',
          headers: { accept: 'application/json', range },
        });
        expect(Buffer.from(await res.arrayBuffer()).length).toBe(0);
        const location = new URL(res.headers.get('location') ?? '');
        answers.push([res.status, res.headers.get('cache-control'), location.pathname]);
        expect(location.searchParams.get('X-Amz-Expires')).toBe('60');
        expect(location.searchParams.get('response-content-disposition')).toBe(
          'attachment; filename="plugin.zip"',
        );
      }
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[0]?.[0]).toBe(302);
      const { entries, total } = await downloadLog(system, { product_id: productId });
      expect(total - before).toBe(2);
      expect(entries.slice(0, 2).map((e) => e.outcome)).toEqual(['served', 'served']);
    },
  );

  test('a client that follows gets the file, or the range, under its name', async () => {
    const whole = await fetch(urlOf(`dlid=${key}`));
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-disposition')).toBe('attachment; filename="plugin.zip"');
    expect(Buffer.from(await whole.arrayBuffer()).equals(bytes)).toBe(true);
    for (const [range, start, end] of [
      ['bytes=0-9', 0, 10],
      ['bytes=10-', 10, 36],
    ] as const) {
      const part = await fetch(urlOf(`dlid=${key}`), { headers: { range } });
      expect([range, part.status]).toEqual([range, 206]);
      expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(start, end))).toBe(true);
    }
  });

  test('a refusal is the same JSON error as in relay mode, to GET and HEAD', async () => {
    for (const method of ['GET', 'HEAD'] as const) {
      const res = await fetch(urlOf('dlid=not-a-key'), {
        method,
        redirect: 'manual',
        headers: { accept: 'application/json' },
      });
      expect([method, res.status, res.headers.get('location')]).toEqual([method, 403, null]);
    }
  });

  test('the reference client follows the redirect and saves the file', async () => {
    const client = new LicensingClient(gatewayUrl, productId);
    const result = await client.download(key, null, null);
    if (!result.success) throw new Error(`${result.code}: ${result.message}`);
    expect(result.data).toMatchObject({ filename: 'plugin.zip', size: SIZE });
  });
});
