import type { RequestHandler } from 'express';
import { z } from 'zod';
import { answerHealth, type ReadinessProbe } from '../../observability/index.js';
import { noStore } from '../no-store.js';
import type { Route } from './route.js';

/** What the health routes need of a surface: the readiness of its process. */
export interface HealthDeps {
  readiness: ReadinessProbe;
}

const Checks = z.record(z.string(), z.string()).meta({
  description: 'Each dependency: `ok`, or `degraded: why` for one the process can do without.',
});

/** Answers `path` as the operations port does (`answerHealth`). */
function answer(path: '/healthz' | '/readyz', readiness: ReadinessProbe): RequestHandler {
  return (_req, res, next) => {
    answerHealth(path, readiness).then(
      ({ status, body }) => void res.status(status).json(body),
      next,
    );
  };
}

/**
 * `GET /healthz` (the process is alive) and `GET /readyz` (it can serve now: 503 naming the
 * dependency that fails), on a public port as on the operations port (docs/operations.md).
 */
export function healthRoutes<Deps extends HealthDeps>(): Route<Deps>[] {
  return [
    {
      method: 'get',
      path: '/healthz',
      operationId: 'liveness',
      summary: 'Liveness: the process is running.',
      tag: 'Operations',
      access: 'public',
      success: {
        200: {
          description: 'The process is running.',
          data: z.object({ status: z.literal('ok') }),
        },
      },
      errors: {},
      handlers: (deps) => [answer('/healthz', deps.readiness)],
    },
    {
      method: 'get',
      path: '/readyz',
      operationId: 'readiness',
      summary: 'Readiness: the process and the dependencies it needs can serve now.',
      tag: 'Operations',
      access: 'public',
      success: {
        200: {
          description: 'Ready: every dependency answers.',
          data: z.object({ status: z.literal('ready'), checks: Checks }),
        },
      },
      errors: {
        503: {
          codes: ['SERVICE_UNAVAILABLE'],
          description: 'Starting, stopping, or a dependency (named in the message) fails.',
        },
      },
      handlers: (deps) => [noStore, answer('/readyz', deps.readiness)],
    },
  ];
}
