import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { ownSystemEnv, ServiceProcesses, type ServiceProcess } from '../support/processes.js';
import { API_BASE } from '../support/system.js';

/**
 * What an operator sees of the system run as separate processes (docs/operations.md): every
 * process's operations port (METRICS_PORT: /healthz, /readyz, /metrics), and, with
 * OTEL_EXPORTER_OTLP_ENDPOINT set, one trace per request from the gateway through RabbitMQ to
 * the service and its database, named in every log line the request causes.
 */
const withRabbit = process.env.AMQP_URL ? describe : describe.skip;

const ADMIN_TOKEN = randomBytes(16).toString('hex');

/** A span as an OTLP/HTTP JSON export carries it, with the service that sent it. */
interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean };
type OtlpAttribute = { key: string; value: OtlpValue };
interface OtlpExport {
  resourceSpans?: Array<{
    resource?: { attributes?: OtlpAttribute[] };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: OtlpAttribute[];
      }>;
    }>;
  }>;
}

function attributesOf(list: OtlpAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries(
    (list ?? []).map(({ key, value }) => [
      key,
      value.stringValue ?? value.intValue ?? value.boolValue,
    ]),
  );
}

/** A trace collector: receives OTLP/HTTP JSON exports and keeps their spans. */
async function startCollector(): Promise<{ url: string; spans: ExportedSpan[]; server: Server }> {
  const spans: ExportedSpan[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
        for (const resource of body.resourceSpans ?? []) {
          const service = String(attributesOf(resource.resource?.attributes)['service.name']);
          for (const scope of resource.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                service,
                traceId: span.traceId,
                spanId: span.spanId,
                parentSpanId: span.parentSpanId ?? '',
                name: span.name,
                attributes: attributesOf(span.attributes),
              });
            }
          }
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, spans, server };
}

/** A span of a MongoDB command (the driver's instrumentation). */
function isDatabaseSpan(span: ExportedSpan): boolean {
  return (
    span.attributes['db.system'] === 'mongodb' || span.attributes['db.system.name'] === 'mongodb'
  );
}

/** Waits until `found` returns something, for at most 20 s (spans come from other processes). */
async function eventually<T>(found: () => T | undefined | false): Promise<T> {
  const until = Date.now() + 20_000;
  for (;;) {
    const value = found();
    if (value) return value;
    if (Date.now() > until) throw new Error('not found within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** One sample of a Prometheus text exposition: `name{labels} value`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const matches = Object.entries(labels).every(([key, value]) =>
      line.includes(`${key}="${value}"`),
    );
    if (matches) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

withRabbit('operations (docs/operations.md): every service as its own process', () => {
  let processes: ServiceProcesses;
  let storage: string;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  const running: Record<string, ServiceProcess> = {};
  let gateway: string;
  let management: string;

  /** The operations port of a process, from its start-up line. */
  const ops = (name: string) => running[name]!.urlOf('operations port listening');
  const metricsOf = async (name: string) => (await request(ops(name)).get('/metrics')).text;

  beforeAll(async () => {
    storage = await mkdtemp(path.join(tmpdir(), 'observability-'));
    collector = await startCollector();
    const env = ownSystemEnv({
      label: 'ops',
      adminToken: ADMIN_TOKEN,
      storageDir: storage,
      overrides: {
        RATE_LIMIT_UPDATES_PER_MINUTE: '3',
        // Debug: the services' line for each RPC request they answer.
        LOG_LEVEL: 'debug',
        OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
        // The SDK's own setting: export spans every 100 ms instead of every 5 s.
        OTEL_BSP_SCHEDULE_DELAY: '100',
      },
    });
    processes = new ServiceProcesses(env);
    const [catalog, license, download] = await Promise.all([
      processes.start('start:update-catalog', 'update-catalog service ready'),
      processes.start('start:license', 'license service ready'),
      processes.start('start:download', 'download service ready'),
    ]);
    const [gatewayProcess, managementProcess] = await Promise.all([
      processes.start('start:gateway', 'gateway listening'),
      processes.start('start:management', 'management API listening'),
    ]);
    Object.assign(running, {
      'update-catalog': catalog,
      license,
      download,
      gateway: gatewayProcess,
      management: managementProcess,
    });
    gateway = gatewayProcess.urlOf('gateway listening');
    management = managementProcess.urlOf('management API listening');
  }, 120_000);

  afterAll(async () => {
    await processes.stopAll();
    collector.server.closeAllConnections();
    await new Promise((resolve) => collector.server.close(resolve));
    await rm(storage, { recursive: true, force: true });
  });

  const admin = (method: 'get' | 'post', route: string, body?: object) => {
    const call = request(management)[method](`/admin/v1${route}`);
    call.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    return body ? call.send(body) : call;
  };

  let plans = 0;
  async function issueLicense(limit: number) {
    const product = (await admin('post', '/products', { title: 'Traced' }).expect(201)).body.data;
    const plan = (
      await admin('post', '/plans', {
        // Plan names are unique.
        name: `Plan ${limit} (${++plans})`,
        activation_type: 'device',
        activation_limit: limit,
      }).expect(201)
    ).body.data;
    const license = (
      await admin('post', '/licenses', { product_id: product.id, plan_id: plan.id }).expect(201)
    ).body.data;
    return { product, license };
  }

  const activate = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
    request(gateway)
      .post(`${API_BASE}/licenses/activate`)
      .set(headers)
      .type('form')
      .send(new URLSearchParams(fields).toString());

  describe('health: GET /healthz and /readyz on every process', () => {
    const dependencies: Record<string, string[]> = {
      gateway: ['rabbitmq', 'redis'],
      management: ['mongodb', 'rabbitmq'],
      license: ['mongodb', 'rabbitmq'],
      'update-catalog': ['mongodb', 'rabbitmq'],
      download: ['mongodb', 'object_storage', 'rabbitmq'],
    };

    test.each(Object.keys(dependencies))(
      '%s: alive, and ready with each dependency it needs checked',
      async (name) => {
        const alive = await request(ops(name)).get('/healthz');
        expect(alive.status).toBe(200);
        expect(alive.body).toEqual({ data: { status: 'ok' } });
        const ready = await request(ops(name)).get('/readyz');
        expect(ready.status).toBe(200);
        expect(ready.body.data.status).toBe('ready');
        expect(Object.keys(ready.body.data.checks).sort()).toEqual(dependencies[name]);
        expect(Object.values(ready.body.data.checks)).toEqual(dependencies[name]!.map(() => 'ok'));
      },
    );

    test('the public ports answer /healthz and /readyz too', async () => {
      for (const url of [gateway, management]) {
        expect((await request(url).get('/healthz')).status).toBe(200);
        const ready = await request(url).get('/readyz');
        expect(ready.status).toBe(200);
        expect(ready.body.data.checks.rabbitmq).toBe('ok');
      }
    });

    test('anything else on the operations port is NOT_FOUND in the error envelope', async () => {
      const res = await request(ops('license')).get('/admin');
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    });
  });

  describe('metrics: GET /metrics on every process (Prometheus)', () => {
    test('HTTP requests by route template and status, RPC calls and handler time by method and outcome, activation outcomes by code', async () => {
      const { license } = await issueLicense(1);
      expect((await activate({ license_key: license.license_key, identifier: 'one' })).status).toBe(
        200,
      );
      expect((await activate({ license_key: license.license_key, identifier: 'one' })).status).toBe(
        200,
      );
      const refused = await activate({ license_key: license.license_key, identifier: 'two' });
      expect(refused.body.error.code).toBe('ACTIVATION_LIMIT_REACHED');

      const gatewayText = await metricsOf('gateway');
      const route = `${API_BASE}/licenses/activate`;
      expect(
        sample(gatewayText, 'http_requests_total', { route, status: '200', method: 'POST' }),
      ).toBe(2);
      expect(sample(gatewayText, 'http_requests_total', { route, status: '403' })).toBe(1);
      // The template, never a path with a key in it.
      expect(gatewayText).not.toContain(license.license_key);
      expect(
        sample(gatewayText, 'http_request_duration_seconds_count', { route, status: '200' }),
      ).toBe(2);
      expect(
        sample(gatewayText, 'rpc_call_duration_seconds_count', {
          method: 'license.activate',
          outcome: 'ok',
        }),
      ).toBe(2);
      expect(
        sample(gatewayText, 'rpc_call_duration_seconds_count', {
          method: 'license.activate',
          outcome: 'ACTIVATION_LIMIT_REACHED',
        }),
      ).toBe(1);

      const licenseText = await metricsOf('license');
      expect(
        sample(licenseText, 'rpc_handler_duration_seconds_count', {
          method: 'license.activate',
          outcome: 'ok',
        }),
      ).toBe(2);
      expect(sample(licenseText, 'activation_outcomes_total', { outcome: 'activated' })).toBe(1);
      expect(sample(licenseText, 'activation_outcomes_total', { outcome: 'already_active' })).toBe(
        1,
      );
      expect(
        sample(licenseText, 'activation_outcomes_total', { outcome: 'ACTIVATION_LIMIT_REACHED' }),
      ).toBe(1);
    });

    test('rate-limit refusals by limit', async () => {
      const { product } = await issueLicense(1);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        statuses.push((await request(gateway).get(`${API_BASE}/updates/${product.id}`)).status);
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
      const text = await metricsOf('gateway');
      expect(sample(text, 'rate_limit_refusals_total', { limit: 'updates-ip' })).toBe(1);
    });

    test('download bytes relayed (gateway), and refused downloads by reason (download)', async () => {
      const { product, license } = await issueLicense(1);
      const version = (
        await admin('post', `/products/${product.id}/versions`, { version: '1.0.0' }).expect(201)
      ).body.data;
      const bytes = randomBytes(50_000);
      await admin('post', `/versions/${version.id}/files`)
        .attach('file', bytes, 'traced-1.0.0.zip')
        .expect(201);
      const before = sample(await metricsOf('gateway'), 'download_bytes_total', {}) ?? 0;
      const served = await request(gateway)
        .get(`${API_BASE}/downloads/${product.id}?dlid=${license.license_key}`)
        .buffer(true)
        .parse((res, done) => {
          res.on('data', () => {});
          res.on('end', () => done(null, null));
        });
      expect(served.status).toBe(200);
      const refused = await request(gateway)
        .get(`${API_BASE}/downloads/${product.id}?dlid=not-a-key`)
        .set('Accept', 'application/json');
      expect(refused.status).toBeGreaterThanOrEqual(400);
      const relayed = sample(await metricsOf('gateway'), 'download_bytes_total', {});
      expect(relayed! - before).toBe(bytes.length);
      const text = await metricsOf('download');
      expect(
        sample(text, 'download_refusals_total', { reason: refused.body.error.code }),
      ).toBeGreaterThanOrEqual(1);
    });

    test('the process defaults and the event-loop lag', async () => {
      for (const name of Object.keys(running)) {
        const text = await metricsOf(name);
        expect(text).toContain('process_cpu_seconds_total');
        expect(text).toContain('nodejs_eventloop_lag_seconds');
        expect(text).toContain('nodejs_heap_size_used_bytes');
      }
    });
  });

  describe('tracing: one trace per request, across the processes', () => {
    test('gateway → RabbitMQ → license service → MongoDB is one trace, whose id the client gets as X-Request-Id', async () => {
      const { license } = await issueLicense(2);
      const res = await activate({ license_key: license.license_key, identifier: 'traced' });
      expect(res.status).toBe(200);
      const traceId = res.headers['x-request-id'];
      expect(traceId).toMatch(/^[0-9a-f]{32}$/);

      const spans = await eventually(() => {
        const found = collector.spans.filter((span) => span.traceId === traceId);
        // Each process exports its spans as they end, in batches: the gateway's request span,
        // which ends last, may come after the others.
        return (
          found.some((span) => span.service === 'licensing-gateway' && span.parentSpanId === '') &&
          found.some((span) => span.service === 'licensing-license' && isDatabaseSpan(span)) &&
          found
        );
      });
      const gatewaySpan = spans.find(
        (span) => span.service === 'licensing-gateway' && span.parentSpanId === '',
      );
      expect(gatewaySpan?.name).toBe(`POST ${API_BASE}/licenses/activate`);
      expect(gatewaySpan?.attributes['http.route']).toBe(`${API_BASE}/licenses/activate`);
      // The message crossed RabbitMQ with its trace context (W3C traceparent in the headers):
      // the license service's spans belong to the same trace, below the gateway's.
      const messages = spans.filter((span) => span.attributes['messaging.system'] === 'rabbitmq');
      expect(messages.map((span) => span.service)).toEqual(
        expect.arrayContaining(['licensing-gateway', 'licensing-license']),
      );
      const ids = new Set(spans.map((span) => span.spanId));
      for (const span of spans) {
        if (span !== gatewaySpan) expect(ids.has(span.parentSpanId)).toBe(true);
      }
      // No credential leaves in a span.
      expect(JSON.stringify(spans)).not.toContain(license.license_key);
    });

    test('a license key in a URL (dlid of a download, the admin path of a license) is in no span', async () => {
      const { product, license } = await issueLicense(1);
      const key = license.license_key;
      const download = await request(gateway)
        .get(`${API_BASE}/downloads/${product.id}?dlid=${key}&identifier=${key}`)
        .set('Accept', 'application/json');
      const detail = await admin('get', `/licenses/${key}`).expect(200);
      const traceIds = [download.headers['x-request-id'], detail.headers['x-request-id']];
      // The root span of each request (the gateway's, management's) ends last: once both are in,
      // every span of the two traces is.
      const spans = await eventually(() => {
        const found = collector.spans.filter((span) => traceIds.includes(span.traceId));
        const roots = found.filter((span) => span.parentSpanId === '');
        return roots.length >= 2 && found;
      });
      expect(spans.some((span) => span.service === 'licensing-download')).toBe(true);
      expect(JSON.stringify(spans)).not.toContain(key);
    });

    test('the trace id is in every log line the request causes, in the gateway and in the service', async () => {
      const { license } = await issueLicense(2);
      const res = await activate({ license_key: license.license_key, identifier: 'logged' });
      const traceId = res.headers['x-request-id'];
      const gatewayLine = await eventually(() =>
        running.gateway!.lines.find((line) => line.msg === 'request' && line.trace_id === traceId),
      );
      expect(gatewayLine).toMatchObject({ request_id: traceId, status: 200 });
      const licenseLine = await eventually(() =>
        running.license!.lines.find((line) => line.msg === 'rpc' && line.trace_id === traceId),
      );
      expect(licenseLine).toMatchObject({ method: 'license.activate', request_id: traceId });
    });

    test('a request id the client sends is returned and named in both processes’ lines', async () => {
      const { license } = await issueLicense(2);
      const sent = `client-${randomBytes(6).toString('hex')}`;
      const res = await activate(
        { license_key: license.license_key, identifier: 'named' },
        { 'X-Request-Id': sent },
      );
      expect(res.headers['x-request-id']).toBe(sent);
      const gatewayLine = await eventually(() =>
        running.gateway!.lines.find((line) => line.msg === 'request' && line.request_id === sent),
      );
      const licenseLine = await eventually(() =>
        running.license!.lines.find((line) => line.msg === 'rpc' && line.request_id === sent),
      );
      // Still traced: both lines name the same trace.
      expect(gatewayLine.trace_id).toMatch(/^[0-9a-f]{32}$/);
      expect(licenseLine.trace_id).toBe(gatewayLine.trace_id);
    });
  });
});
