import { REDACTED, redactedPath, redactedQuery } from '../../libs/observability/trace-redaction.js';
import { Gauge, register } from 'prom-client';
import request from 'supertest';
import { ReadinessProbe, answerHealth, startOpsServer } from '../../libs/observability/index.js';

/** docs/operations.md: readiness, and what a trace may say of a URL. */

const ok = (name: string) => ({ name, check: async () => {} });
const failing = (name: string, why: string) => ({
  name,
  check: async () => {
    throw new Error(why);
  },
});

describe('readiness (GET /readyz)', () => {
  test('a process is not ready while it starts, ready once started, not ready once stopping', async () => {
    const probe = new ReadinessProbe([ok('mongodb')], 'starting');
    expect(await probe.probe()).toEqual({
      ready: false,
      checks: { process: 'starting', mongodb: 'ok' },
    });
    probe.markStarted();
    expect(await probe.probe()).toEqual({ ready: true, checks: { mongodb: 'ok' } });
    probe.markStopping();
    expect((await probe.probe()).ready).toBe(false);
    probe.markStarted();
    expect((await probe.probe()).checks.process).toBe('stopping');
  });

  test('a dependency that fails makes the process not ready, with the reason', async () => {
    const probe = new ReadinessProbe([ok('rabbitmq'), failing('mongodb', 'not connected')]);
    expect(await probe.probe()).toEqual({
      ready: false,
      checks: { rabbitmq: 'ok', mongodb: 'not connected' },
    });
  });

  test('an optional dependency that fails is reported as degraded, and the process stays ready', async () => {
    const probe = new ReadinessProbe([
      ok('rabbitmq'),
      { ...failing('redis', 'Redis connection reconnecting'), optional: true },
    ]);
    expect(await probe.probe()).toEqual({
      ready: true,
      checks: { rabbitmq: 'ok', redis: 'degraded: Redis connection reconnecting' },
    });
  });

  test('a dependency that does not answer fails after 2 s instead of hanging the probe', async () => {
    const probe = new ReadinessProbe([{ name: 'mongodb', check: () => new Promise(() => {}) }]);
    expect(await probe.probe()).toEqual({
      ready: false,
      checks: { mongodb: 'no answer within 2000 ms' },
    });
  });

  test('not ready is 503 SERVICE_UNAVAILABLE in the error envelope, naming what fails', async () => {
    const probe = new ReadinessProbe([ok('rabbitmq'), failing('mongodb', 'not connected')]);
    expect(await answerHealth('/readyz', probe)).toEqual({
      status: 503,
      body: {
        error: { code: 'SERVICE_UNAVAILABLE', message: 'Not ready: mongodb (not connected)' },
      },
    });
    expect(await answerHealth('/healthz', probe)).toEqual({
      status: 200,
      body: { data: { status: 'ok' } },
    });
  });
});

describe('metrics (GET /metrics)', () => {
  test('a collector that fails gives the scrape a 500 in the error envelope, and the port goes on', async () => {
    const ops = await startOpsServer({
      port: 0,
      host: '127.0.0.1',
      readiness: new ReadinessProbe([]),
    });
    new Gauge({
      name: 'test_broken_collector',
      help: 'A collector that fails.',
      collect() {
        throw new Error('collector failed');
      },
    });
    try {
      // A scrape that hangs fails here, within the test's time; 5 s was missed on a loaded machine.
      const scrape = await request(ops.url).get('/metrics').timeout(30_000);
      expect([scrape.status, scrape.body.error?.code]).toEqual([500, 'INTERNAL_ERROR']);
      register.removeSingleMetric('test_broken_collector');
      expect((await request(ops.url).get('/metrics')).status).toBe(200);
    } finally {
      register.removeSingleMetric('test_broken_collector');
      await ops.close();
    }
  });
});

describe('traces carry no credential', () => {
  test('query values are dropped, their names kept', () => {
    expect(redactedQuery('dlid=0123456789abcdef&identifier=shop.example')).toBe(
      `dlid=${REDACTED}&identifier=${REDACTED}`,
    );
    expect(redactedPath('/v1/downloads/42?license_key=k')).toBe(
      `/v1/downloads/42?license_key=${REDACTED}`,
    );
  });

  test('a path segment long enough to be a key or a ticket is replaced; names and numbers stay', () => {
    expect(redactedPath('/admin/v1/licenses/0123456789abcdef0123456789abcdef/activations')).toBe(
      `/admin/v1/licenses/${REDACTED}/activations`,
    );
    expect(redactedPath('/objects/eyJrZXkiOiJ4In0.c2lnbmF0dXJl')).toBe(`/objects/${REDACTED}`);
    expect(redactedPath('/api/v1/updates/42')).toBe('/api/v1/updates/42');
  });
});
