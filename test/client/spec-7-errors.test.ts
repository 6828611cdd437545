import {
  classifyResult,
  isLicenseProblem,
  isTransientFailure,
  LicensingClient,
  retryDelay,
  type ClientOptions,
  type LicensingResult,
} from '../../libs/client/src/index.js';
import { refusedUrl, sendJson, serve, type LocalServer } from './servers.js';

/**
 * The timeout of a client whose server never finishes its answer, so that waiting for it is
 * short; a client whose server answers waits as long as a loaded machine may need.
 */
const TIMEOUT_MS = 300;
const ANSWERED_TIMEOUT_MS = 15_000;

/** Each operation of the client, run against one store. */
const operations: Array<[string, (c: LicensingClient) => Promise<LicensingResult<unknown>>]> = [
  ['activate', (c) => c.activate('KEY', 'example.com')],
  ['validate', (c) => c.validate('KEY', 'example.com')],
  ['deactivate', (c) => c.deactivate('KEY', 'example.com')],
  ['checkUpdate', (c) => c.checkUpdate('KEY')],
  ['download', (c) => c.download('KEY', 'example.com', null)],
];

const servers: LocalServer[] = [];
async function store(handler: Parameters<typeof serve>[0], options: ClientOptions = {}) {
  const server = await serve(handler);
  servers.push(server);
  return new LicensingClient(server.url, 12, { timeout: ANSWERED_TIMEOUT_MS, ...options });
}
afterAll(() => Promise.all(servers.map((s) => s.close())));

describe('spec 7 rule 3: every call returns {success, data, message, code}', () => {
  test('a success carries the data payload, an empty message and an empty code', async () => {
    const client = await store((_req, res) => sendJson(res, 200, { data: { valid: true } }));
    expect(await client.validate('KEY')).toEqual({
      success: true,
      data: { valid: true },
      message: '',
      code: '',
      httpStatus: 200,
    });
  });

  test('an error carries data null, the code and the message of the error object, and its extra fields', async () => {
    const client = await store((_req, res) =>
      sendJson(res, 403, {
        error: {
          code: 'ACTIVATION_LIMIT_REACHED',
          message: 'All activations are in use.',
          activation_limit: 1,
          activations_used: 1,
        },
      }),
    );
    expect(await client.activate('KEY', 'b.com')).toEqual({
      success: false,
      data: null,
      message: 'All activations are in use.',
      code: 'ACTIVATION_LIMIT_REACHED',
      httpStatus: 403,
      details: { activation_limit: 1, activations_used: 1 },
    });
  });

  describe.each(operations)('%s', (_name, call) => {
    test('a refused connection gives an empty code and a message starting with "Connection error:"', async () => {
      const client = new LicensingClient(await refusedUrl(), 12, TIMEOUT_MS);
      const result = await call(client);
      expect(result).toMatchObject({ success: false, data: null, code: '', httpStatus: 0 });
      expect(result.message).toMatch(/^Connection error: .*ECONNREFUSED/);
      expect(classifyResult(result)).toBe('transient');
    });

    test('a server that hangs past the timeout gives a connection error', async () => {
      const client = await store(
        () => {
          // Never answers.
        },
        { timeout: TIMEOUT_MS },
      );
      const result = await call(client);
      expect(result).toMatchObject({ success: false, data: null, code: '' });
      expect(result.message).toBe(
        'Connection error: no answer from the server within 0.3 seconds.',
      );
    });

    test.each([200, 403])(
      'a server that sends its headers (HTTP %i) and then stalls mid-body times out as a connection error',
      async (status) => {
        const client = await store(
          (_req, res) => {
            const headers = { 'Content-Type': 'application/json' };
            // With and without Content-Length: a fixed-length body and a chunked one.
            res.writeHead(
              status,
              status === 200 ? { ...headers, 'Content-Length': '100' } : headers,
            );
            res.write('{"error": {"code": "LICENSE_');
          },
          { timeout: TIMEOUT_MS },
        );
        const started = Date.now();
        const result = await call(client);
        expect(result).toMatchObject({ success: false, data: null, code: '', httpStatus: status });
        expect(result.message).toMatch(
          /^Connection error: .*no answer from the server within 0\.3 seconds/,
        );
        expect(classifyResult(result)).toBe('transient');
        expect(Date.now() - started).toBeLessThan(3000);
      },
    );

    test('an HTML error page gives an empty code and "Invalid response from server."', async () => {
      const client = await store((_req, res) => {
        res.writeHead(502, { 'Content-Type': 'text/html' });
        res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
      });
      expect(await call(client)).toEqual({
        success: false,
        data: null,
        message: 'Invalid response from server.',
        code: '',
        httpStatus: 502,
      });
    });

    test('an unknown error code is a generic failure that is not a license problem', async () => {
      const client = await store((_req, res) =>
        sendJson(res, 409, { error: { code: 'SOMETHING_NEW', message: 'A newer rule.' } }),
      );
      const result = await call(client);
      expect(result).toMatchObject({
        success: false,
        data: null,
        code: 'SOMETHING_NEW',
        message: 'A newer rule.',
      });
      expect(classifyResult(result)).toBe('failure');
      expect(isLicenseProblem(result)).toBe(false);
    });

    test('RATE_LIMITED is transient and exposes Retry-After in seconds', async () => {
      const client = await store((_req, res) =>
        sendJson(
          res,
          429,
          { error: { code: 'RATE_LIMITED', message: 'Too many requests.' } },
          { 'Retry-After': '30' },
        ),
      );
      const result = await call(client);
      expect(result).toMatchObject({ success: false, code: 'RATE_LIMITED', retryAfter: 30 });
      expect(isTransientFailure(result)).toBe(true);
      expect(isLicenseProblem(result)).toBe(false);
    });
  });

  test('a 200 whose body is not JSON gives "Invalid response from server."', async () => {
    const client = await store((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"data": {"valid": tru');
    });
    for (const [, call] of operations.slice(0, 4)) {
      expect(await call(client)).toEqual({
        success: false,
        data: null,
        message: 'Invalid response from server.',
        code: '',
        httpStatus: 200,
      });
    }
  });

  test('JSON without a data or an error envelope is an invalid response too', async () => {
    const bodies: unknown[] = [[], 'text', null, {}, { error: 'broken' }, { error: { code: '' } }];
    let next = 0;
    // Neither retried nor remembered, so each call reads the next body.
    const client = await store((_req, res) => sendJson(res, 200, bodies[next++]), {
      retries: 0,
      negativeCacheTtl: 0,
    });
    for (let i = 0; i < bodies.length; i++) {
      const result = await client.validate('KEY');
      expect(result).toMatchObject({ success: false, message: 'Invalid response from server.' });
    }
    expect(next).toBe(bodies.length);
  });

  test('an error without a message reports its code as the message', async () => {
    const client = await store((_req, res) =>
      sendJson(res, 400, { error: { code: 'INVALID_REQUEST' } }),
    );
    expect(await client.validate('')).toMatchObject({
      code: 'INVALID_REQUEST',
      message: 'INVALID_REQUEST',
    });
  });
});

describe('spec 7 rule 2: RATE_LIMITED and INTERNAL_ERROR say nothing about the license', () => {
  const failure = (
    code: string,
    httpStatus: number,
    retryAfter?: number,
  ): LicensingResult<never> => ({
    success: false,
    data: null,
    message: 'x',
    code,
    httpStatus,
    ...(retryAfter === undefined ? {} : { retryAfter }),
  });
  const success = (data: unknown): LicensingResult<unknown> => ({
    success: true,
    data,
    message: '',
    code: '',
    httpStatus: 200,
  });

  test('the helper tells license problems from transient failures and other failures', () => {
    for (const code of [
      'LICENSE_INVALID',
      'LICENSE_EXPIRED',
      'PRODUCT_MISMATCH',
      'ACTIVATION_LIMIT_REACHED',
      'ACTIVATION_REQUIRED',
      'ACTIVATION_NOT_FOUND',
    ]) {
      expect(classifyResult(failure(code, 403))).toBe('license');
    }
    expect(classifyResult(failure('RATE_LIMITED', 429))).toBe('transient');
    expect(classifyResult(failure('INTERNAL_ERROR', 500))).toBe('transient');
    expect(classifyResult(failure('', 0))).toBe('transient');
    expect(classifyResult(failure('SERVICE_UNAVAILABLE', 503))).toBe('transient');
    expect(classifyResult(failure('INVALID_REQUEST', 400))).toBe('failure');
    expect(classifyResult(failure('SOMETHING_NEW', 400))).toBe('failure');
  });

  test('a validation that answers valid false, or an identifier that is not activated, is a license problem', () => {
    expect(classifyResult(success({ valid: true, identifier_activated: true }))).toBe('ok');
    expect(classifyResult(success({ valid: false, identifier_activated: true }))).toBe('license');
    expect(classifyResult(success({ valid: true, identifier_activated: false }))).toBe('license');
    expect(classifyResult(success({ update_available: false }))).toBe('ok');
  });

  test('INTERNAL_ERROR from the server is transient', async () => {
    const client = await store((_req, res) =>
      sendJson(res, 500, { error: { code: 'INTERNAL_ERROR', message: 'Unexpected failure.' } }),
    );
    const result = await client.validate('KEY');
    expect(result).toMatchObject({ code: 'INTERNAL_ERROR', httpStatus: 500 });
    expect(result).not.toHaveProperty('retryAfter');
    expect(isTransientFailure(result)).toBe(true);
  });

  test('Retry-After given as an HTTP date is turned into seconds', async () => {
    const client = await store((_req, res) =>
      sendJson(
        res,
        503,
        { error: { code: 'INTERNAL_ERROR', message: 'Down.' } },
        { 'Retry-After': new Date(Date.now() + 120_000).toUTCString() },
      ),
    );
    const result = await client.checkUpdate();
    expect(result.success).toBe(false);
    if (!result.success) {
      expect(result.retryAfter).toBeGreaterThanOrEqual(118);
      expect(result.retryAfter).toBeLessThanOrEqual(120);
    }
  });

  test('retryDelay backs off exponentially and never retries before Retry-After', () => {
    const options = { baseMs: 1000, maxMs: 60_000, random: () => 0 };
    expect(retryDelay(failure('', 0), 0, options)).toBe(1000);
    expect(retryDelay(failure('', 0), 3, options)).toBe(8000);
    expect(retryDelay(failure('', 0), 20, options)).toBe(60_000);
    expect(retryDelay(failure('RATE_LIMITED', 429, 30), 0, options)).toBe(30_000);
    expect(retryDelay(failure('', 0), 0, { ...options, random: () => 0.5 })).toBe(1100);
  });
});
