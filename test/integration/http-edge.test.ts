import { connect } from 'node:net';
import { ADMIN_TOKEN, API_BASE, bootSystem, type TestSystem } from '../support/system.js';

/** Time allowed to receive a request in this file's system: short, so slow requests end soon. */
const REQUEST_TIMEOUT_MS = 1500;

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem({
    HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
  });
});
afterAll(() => system?.stop());

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Sends raw bytes on a fresh connection (`parts` written in turn; a number pauses that many ms)
 * and reads the answer until the server closes the connection. Bytes the server refuses to read
 * may reset the connection after its answer; the answer read until then counts.
 */
function raw(url: string, ...parts: Array<string | Buffer | number>): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    const done = () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]);
      if (!status) return reject(new Error(`no HTTP answer: ${JSON.stringify(text)}`));
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status, headers, body: rest.join('\r\n\r\n') });
    };
    socket.on('close', done);
    socket.on('error', () => {}); // a reset after the answer: `close` follows
    socket.on('connect', async () => {
      for (const part of parts) {
        if (typeof part === 'number') await new Promise((r) => setTimeout(r, part));
        else if (!socket.destroyed) socket.write(part);
      }
    });
  });
}

function expectEnvelope(res: RawResponse, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(JSON.parse(res.body)).toEqual({ error: { code, message: expect.any(String) } });
}

const gateway = () => system.running.gatewayUrl;
const management = () => system.running.managementUrl;
const both = () => [gateway(), management()];

describe('requests refused before any route sees them get the spec 7 error envelope', () => {
  test('headers too large: 431 REQUEST_HEADERS_TOO_LARGE', async () => {
    for (const url of both()) {
      const res = await raw(
        url,
        `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      );
      expectEnvelope(res, 431, 'REQUEST_HEADERS_TOO_LARGE');
    }
  });

  test('a request line that is not HTTP: 400 INVALID_REQUEST', async () => {
    for (const url of both()) {
      expectEnvelope(await raw(url, 'GARBAGE\r\n\r\n'), 400, 'INVALID_REQUEST');
      expectEnvelope(await raw(url, 'GET / HTTP/9.9\r\nHost: x\r\n\r\n'), 400, 'INVALID_REQUEST');
    }
  });

  test('headers that never end: 408 REQUEST_TIMEOUT', async () => {
    for (const url of both()) {
      // The request line and one header, then nothing: the timeout ends it, in the envelope.
      expectEnvelope(await raw(url, 'GET / HTTP/1.1\r\nHost: x\r\n'), 408, 'REQUEST_TIMEOUT');
    }
  });

  test('CONNECT: 404 NOT_FOUND, and the connection is closed', async () => {
    for (const url of both()) {
      const res = await raw(
        url,
        'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
      );
      expectEnvelope(res, 404, 'NOT_FOUND');
      expect(res.headers.connection).toBe('close');
    }
  });
});

const activate = `POST ${API_BASE}/licenses/activate HTTP/1.1\r\nHost: x\r\n`;
const form = 'Content-Type: application/x-www-form-urlencoded\r\n';

describe('bodies: refused by their declared size at once, and within a time limit', () => {
  test('a Content-Length over the limit is refused with 413 before any byte of the body', async () => {
    // No body is ever sent: a server that waited for it would answer 408, not 413.
    const res = await raw(gateway(), `${activate}${form}Content-Length: 100000000\r\n\r\n`);
    expectEnvelope(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(res.headers.connection).toBe('close');
    const admin = await raw(
      management(),
      `POST /admin/v1/products HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100000000\r\n\r\n',
    );
    expectEnvelope(admin, 413, 'PAYLOAD_TOO_LARGE');
    const upload = await raw(
      management(),
      `POST /admin/v1/versions/1/files HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n` +
        'Content-Type: multipart/form-data; boundary=b\r\n' +
        `Content-Length: ${system.config.MAX_UPLOAD_BYTES + 10_000_000}\r\n\r\n`,
    );
    expectEnvelope(upload, 413, 'PAYLOAD_TOO_LARGE');
  });

  test('a 10 MB body is answered with 413 without being read to its end', async () => {
    // The first megabyte, then nothing: a server that read the body to its end before answering
    // would wait for the rest and answer 408.
    const firstPart = Buffer.alloc(1024 * 1024, 0x61);
    const res = await raw(
      gateway(),
      `${activate}${form}Content-Length: ${10 * 1024 * 1024}\r\n\r\n`,
      firstPart,
    );
    expectEnvelope(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  test('a chunked body that grows past the limit is refused with 413', async () => {
    const chunk = 'a'.repeat(8 * 1024);
    const res = await raw(
      gateway(),
      `${activate}${form}Transfer-Encoding: chunked\r\n\r\n`,
      ...Array.from({ length: 4 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`),
    );
    expectEnvelope(res, 413, 'PAYLOAD_TOO_LARGE');
  });

  test('a body that stops arriving is refused with 408 REQUEST_TIMEOUT', async () => {
    const { key } = await system.license();
    const slow = `license_key=${key}&identifier=slow.example`;
    const res = await raw(
      gateway(),
      `${activate}${form}Content-Length: ${slow.length + 10}\r\n\r\n`,
      slow,
    );
    expectEnvelope(res, 408, 'REQUEST_TIMEOUT');
    const admin = await raw(
      management(),
      `PATCH /admin/v1/licenses/${key} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ADMIN_TOKEN}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"activation_limit":',
    );
    expectEnvelope(admin, 408, 'REQUEST_TIMEOUT');
    const license = await system.transport.call('license.getLicense', { license_key: key });
    expect({ used: license.activations_used, limit: license.activation_limit }).toEqual({
      used: 0,
      limit: 3,
    });
  });
});

describe('management API: bad input is refused and changes nothing', () => {
  const auth = { Authorization: `Bearer ${ADMIN_TOKEN}` };

  test('JSON that is not valid UTF-8 is refused with 400 INVALID_REQUEST', async () => {
    const before = await system.transport.call('update-catalog.listProducts', {});
    const body = Buffer.concat([
      Buffer.from('{"title":"Bad '),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const res = await raw(
      management(),
      `POST /admin/v1/products HTTP/1.1\r\nHost: x\r\nConnection: close\r\n` +
        `Authorization: Bearer ${ADMIN_TOKEN}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${body.length}\r\n\r\n`,
      body,
    );
    expectEnvelope(res, 400, 'INVALID_REQUEST');
    expect(JSON.parse(res.body).error.message).toMatch(/UTF-8/);
    const after = await system.transport.call('update-catalog.listProducts', {});
    expect(after.products).toHaveLength(before.products.length);
  });

  test('JSON in another charset is refused with 415', async () => {
    const res = await system
      .admin()
      .post('/admin/v1/products')
      .set(auth)
      .set('Content-Type', 'application/json; charset=latin1')
      .send('{"title":"Latin"}');
    expect(res.status).toBe(415);
    expect(res.body.error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  test('page and per_page of the download log are bounded: 400, not 500', async () => {
    for (const query of ['page=100000000', 'page=10001', 'per_page=501', 'page=0']) {
      const res = await system.admin().get(`/admin/v1/download-log?${query}`).set(auth);
      expect({ query, status: res.status, code: res.body.error?.code }).toEqual({
        query,
        status: 400,
        code: 'INVALID_REQUEST',
      });
    }
    const last = await system
      .admin()
      .get('/admin/v1/download-log?page=10000&per_page=500')
      .set(auth);
    expect(last.status).toBe(200);
  });

  test('a request that sends the Authorization header twice is refused', async () => {
    for (const second of [ADMIN_TOKEN, 'something-else']) {
      const res = await raw(
        management(),
        'GET /admin/v1/plans HTTP/1.1\r\nHost: x\r\nConnection: close\r\n' +
          `Authorization: Bearer ${ADMIN_TOKEN}\r\nAuthorization: Bearer ${second}\r\n\r\n`,
      );
      expectEnvelope(res, 400, 'INVALID_REQUEST');
    }
  });
});
