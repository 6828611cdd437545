import { connect } from 'node:net';
import express from 'express';
import { configureApp, listen, RefusedRequestLog, type Listening } from '../../libs/http/index.js';
import { createLogger, keyFingerprint } from '../../libs/logging/index.js';
import { eventually } from '../support/eventually.js';
import { AUTH, createVersion, uploadFile } from '../support/packages.js';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';

/**
 * Logs a person can read: one line per HTTP request at `info` in every process that serves
 * HTTP (method, route template, status, duration, request id), and never a license key whole.
 */

const lines: string[] = [];
const logger = createLogger('log-test', {
  level: 'trace',
  format: 'json',
  destination: { write: (line: string) => void lines.push(line) },
});

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem({}, { logger });
});
afterAll(() => system?.stop());

interface RequestLine {
  level: number;
  msg: string;
  service?: string;
  method: string;
  route: string | null;
  status: number;
  duration_ms: number;
  request_id: string;
}

const requestLines = () =>
  lines.map((line) => JSON.parse(line) as RequestLine).filter((line) => line.msg === 'request');

/** The line logged for the request that was answered with this X-Request-Id. */
async function lineOf(requestId: string): Promise<RequestLine> {
  // The line is written when the response has ended, a moment after the client has it.
  const found = () => requestLines().filter((line) => line.request_id === requestId);
  await eventually(`the request line of ${requestId}`, () => found().length > 0);
  expect(found()).toHaveLength(1);
  return found()[0]!;
}

describe('one line per HTTP request, at info', () => {
  test('the line names method, route template, status, duration and request id', async () => {
    const { key, product } = await system.license();
    const res = await system.post('activate', {
      license_key: key,
      identifier: 'log.example',
      product_id: product.id,
    });
    expect(res.status).toBe(200);
    const id = res.headers['x-request-id']!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await lineOf(id)).toMatchObject({
      level: 30,
      service: 'gateway',
      method: 'POST',
      route: `${API_BASE}/licenses/activate`,
      status: 200,
      duration_ms: expect.any(Number),
    });
  });

  test('untraced, the request id is new and every line the request causes names it, in the services too', async () => {
    const { key, product } = await system.license();
    const res = await system.post('validate', { license_key: key, product_id: product.id });
    const id = res.headers['x-request-id']!;
    await lineOf(id);
    const caused = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.request_id === id);
    // The gateway's request line and the license service's line for the RPC it answered.
    expect(caused.map((line) => line.msg).sort()).toEqual(['request', 'rpc']);
    expect(caused.find((line) => line.msg === 'rpc')).toMatchObject({
      method: 'license.validate',
      outcome: 'ok',
    });
    // Tracing is off (no OTEL_EXPORTER_OTLP_ENDPOINT): no line names a trace.
    expect(caused.every((line) => !('trace_id' in line))).toBe(true);
  });

  test('a request id the client sends is kept and returned', async () => {
    const res = await system
      .api()
      .get(`${API_BASE}/updates/999999`)
      .set('X-Request-Id', 'client-chosen.42');
    expect(res.headers['x-request-id']).toBe('client-chosen.42');
    expect(await lineOf('client-chosen.42')).toMatchObject({
      route: `${API_BASE}/updates/:product_id`,
      status: 200,
    });
    const odd = await system.api().get(`${API_BASE}/updates/1`).set('X-Request-Id', 'no spaces');
    expect(odd.headers['x-request-id']).not.toBe('no spaces');
  });

  test('an error is logged under the route it happened on, and an unknown path under none', async () => {
    const refused = await system.post('activate', {
      license_key: 'no-such-key',
      identifier: 'a.b',
    });
    expect(await lineOf(refused.headers['x-request-id']!)).toMatchObject({
      route: `${API_BASE}/licenses/activate`,
      status: 403,
    });
    const admin = await system.admin().get('/admin/v1/licenses/no-such-key').set(AUTH);
    expect(await lineOf(admin.headers['x-request-id']!)).toMatchObject({
      service: 'management',
      route: '/admin/v1/licenses/:key',
      status: 404,
    });
    const unknown = await system.api().get('/no/such/path');
    expect(await lineOf(unknown.headers['x-request-id']!)).toMatchObject({
      route: null,
      status: 404,
    });
  });
});

describe('license keys are never logged whole', () => {
  test('a whole flow, refusals included, leaves no key in any log line', async () => {
    const { key, product } = await system.license();
    const version = await createVersion(system, product.id, '1.0.0');
    await uploadFile(system, version.id, Buffer.from('package'), 'plugin.zip');
    const answered = [
      await system.post('activate', { license_key: key, identifier: 'flow.example' }),
      await system.post('validate', { license_key: key, identifier: 'flow.example' }),
      await system.post('activate', { dlid: key, identifier: 'https://' }),
      await system.api().get(`${API_BASE}/updates/${product.id}?dlid=${key}`),
      await system.api().get(`${API_BASE}/downloads/${product.id}?dlid=${key}`),
      await system.api().get(`${API_BASE}/downloads/${product.id}?license_key=${key}&identifier=x`),
    ];
    // The updaters' feeds and the files they list, the key in the query, the path or a header.
    const feeds = `${API_BASE}/updates/${product.id}`;
    answered.push(
      await system.api().get(`${feeds}/joomla.xml?dlid=${key}`),
      await system.api().get(`${feeds}/joomla/${key}.xml`),
      await system.api().get(`${feeds}/wordpress.json?license_key=${key}`),
      await system.api().get(`${feeds}/electron/latest.yml`).set('Authorization', `License ${key}`),
      await system.api().get(`${feeds}/appcast.xml?license_key=${key}`),
      await system.api().get(`${feeds}/tauri/linux/x86_64/1.0.0?license_key=${key}`),
      await system
        .api()
        .get(`${API_BASE}/edd?edd_action=check_license&item_id=${product.id}&license=${key}`),
      await system.api().get(`${API_BASE}/downloads/${product.id}/files/1/a.zip?dlid=${key}`),
      await system.admin().get(`/admin/v1/licenses/${key}`).set(AUTH),
      await system.post('deactivate', { license_key: key, identifier: 'flow.example' }),
      await system.admin().get('/admin/v1/download-log').set(AUTH),
    );
    // Every request has been logged, the download service's upload port included.
    for (const res of answered) await lineOf(res.headers['x-request-id']!);
    await eventually('the request line of the upload', () =>
      requestLines().some((line) => line.route === '/uploads/:ticket'),
    );
    expect(lines.join('\n')).not.toContain(key);
  });

  test('a key in a logged field is replaced by its fingerprint', () => {
    const captured: string[] = [];
    const log = createLogger('fingerprint', {
      level: 'info',
      format: 'json',
      destination: { write: (line: string) => void captured.push(line) },
    });
    log.info({ license_key: 'SECRET-KEY-1', request: { dlid: 'SECRET-KEY-2' } }, 'checked');
    const text = captured.join('');
    expect(text).not.toContain('SECRET-KEY');
    expect(text).toContain(keyFingerprint('SECRET-KEY-1'));
    expect(text).toContain(keyFingerprint('SECRET-KEY-2'));
    expect(keyFingerprint('SECRET-KEY-1')).not.toBe(keyFingerprint('SECRET-KEY-2'));
  });
});

describe('requests Node refuses itself are logged too, bounded', () => {
  const refusedLines: string[] = [];
  const refusedLogger = createLogger('edge-test', {
    level: 'info',
    format: 'json',
    destination: { write: (line: string) => void refusedLines.push(line) },
  });
  let server: Listening;
  beforeAll(async () => {
    const app = express();
    configureApp(app, false, refusedLogger);
    app.get('/ok', (_req, res) => void res.json({ data: 'ok' }));
    // Short header time, so a slowloris is refused soon.
    server = await listen(app, 0, '127.0.0.1', refusedLogger, {
      headersTimeoutMs: 300,
      requestTimeoutMs: 300,
    });
  });
  afterAll(() => server?.close());

  /** Writes `text` on a fresh connection; resolves with the answer once the server closes it. */
  function rawAnswer(text: string): Promise<string> {
    const { hostname, port } = new URL(server.url);
    return new Promise((resolve) => {
      const socket = connect(Number(port), hostname);
      let answer = '';
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
      socket.on('error', () => resolve(answer));
      socket.on('close', () => resolve(answer));
      socket.write(text);
    });
  }

  const logged = () =>
    refusedLines
      .map((line) => JSON.parse(line) as RequestLine & { not_logged?: number })
      .filter((line) => line.msg === 'request' || line.msg === 'refused requests not logged');

  async function lineFor(answer: string): Promise<RequestLine> {
    const id = /^X-Request-Id: (\S+)\r$/m.exec(answer)?.[1];
    expect(id).toEqual(expect.any(String));
    const found = () => logged().filter((line) => line.request_id === id);
    await eventually(`the request line of ${id}`, () => found().length > 0);
    expect(found()).toHaveLength(1);
    return found()[0]!;
  }

  test('400, 431, 408 and CONNECT each get the request line, with the fields of any other', async () => {
    const ok = await fetch(`${server.url}/ok`);
    const okLine = await lineFor(`X-Request-Id: ${ok.headers.get('x-request-id')}\r\n`);

    const cases: Array<[string, number, string | null]> = [
      ['NOT HTTP AT ALL\r\n\r\n', 400, null],
      [`GET /ok HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, null],
      // Headers that never end: refused once the header time is up.
      ['GET /ok HTTP/1.1\r\nHost: x\r\n', 408, null],
      ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 404, 'CONNECT'],
    ];
    for (const [text, status, method] of cases) {
      const answer = await rawAnswer(text);
      expect(answer).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
      const line = await lineFor(answer);
      expect(Object.keys(line).sort()).toEqual(Object.keys(okLine).sort());
      expect(line).toMatchObject({ level: 30, method, route: null, status });
      expect(line.duration_ms).toEqual(expect.any(Number));
    }
  });

  test('past ten lines a second, the rest are counted in one line', () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = createLogger('bound-test', {
      level: 'info',
      format: 'json',
      destination: { write: (line: string) => void lines.push(JSON.parse(line)) },
    });
    let now = 0;
    const log = new RefusedRequestLog(10, () => now);
    const line = (n: number) => ({
      method: null,
      status: 400,
      duration_ms: 1,
      request_id: `r${n}`,
    });
    for (let n = 0; n < 25; n++) log.write(sink, line(n));
    expect(lines.filter((l) => l.msg === 'request')).toHaveLength(10);
    // The next second: first the count of those left out, then its own lines.
    now = 1000;
    log.write(sink, line(25));
    expect(lines.slice(10).map((l) => [l.msg, l.not_logged ?? l.request_id])).toEqual([
      ['refused requests not logged', 15],
      ['request', 'r25'],
    ]);
    // A count waiting at the end of a flood is written on its own (its timer, or a flush).
    for (let n = 26; n < 40; n++) log.write(sink, line(n));
    log.flush(sink);
    expect(lines.at(-1)).toMatchObject({ msg: 'refused requests not logged', not_logged: 5 });
  });
});
