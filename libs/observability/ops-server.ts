import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { internalError, LicensingError } from '../contracts/index.js';
import { metricsContentType, metricsText } from './metrics.js';
import type { ReadinessProbe } from './readiness.js';

/**
 * The operations port of a process (METRICS_PORT): `/healthz` (the process is alive),
 * `/readyz` (it can work now: 503 naming what it lacks) and `/metrics` (Prometheus). Kept apart
 * from the public ports, so metrics are not exposed where clients reach.
 */

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(text);
}

/**
 * `/healthz` and `/readyz` in the spec's envelopes, shared with the public ports' routes. Ready:
 * every check, `ok` or `degraded: why`. Not ready: 503 SERVICE_UNAVAILABLE naming what fails.
 */
export async function answerHealth(
  path: '/healthz' | '/readyz',
  readiness: ReadinessProbe,
): Promise<{ status: number; body: unknown }> {
  if (path === '/healthz') return { status: 200, body: { data: { status: 'ok' } } };
  const { ready, checks } = await readiness.probe();
  if (ready) return { status: 200, body: { data: { status: 'ready', checks } } };
  const failing = Object.entries(checks)
    .filter(([, state]) => state !== 'ok' && !state.startsWith('degraded'))
    .map(([name, state]) => `${name} (${state})`);
  const error = new LicensingError('SERVICE_UNAVAILABLE', `Not ready: ${failing.join('; ')}`);
  return { status: 503, body: error.toBody() };
}

export interface OpsServer {
  url: string;
  close(): Promise<void>;
}

export async function startOpsServer(options: {
  port: number;
  host: string;
  readiness: ReadinessProbe;
}): Promise<OpsServer> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      json(
        res,
        404,
        new LicensingError('NOT_FOUND', `There is no ${req.method} ${path}.`).toBody(),
      );
      return;
    }
    if (path === '/healthz' || path === '/readyz') {
      void answerHealth(path, options.readiness).then(({ status, body }) =>
        json(res, status, body),
      );
      return;
    }
    if (path === '/metrics') {
      metricsText().then(
        (text) => {
          res.writeHead(200, { 'Content-Type': metricsContentType, 'Cache-Control': 'no-store' });
          res.end(text);
        },
        // A collector that fails: the scrape gets an error, the process goes on.
        () => json(res, 500, internalError('The metrics could not be collected.').toBody()),
      );
      return;
    }
    json(res, 404, new LicensingError('NOT_FOUND', `There is no GET ${path}.`).toBody());
  });
  server.requestTimeout = 10_000;
  server.headersTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost =
    options.host === '0.0.0.0' || options.host === '::' ? 'localhost' : options.host;
  return {
    url: `http://${shownHost}:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}
