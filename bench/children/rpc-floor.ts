/**
 * The floor under the gateway's paths, measured beside them: what any answer of this
 * architecture costs before its own work. An Express app in a process of its own that reads the
 * same urlencoded form as the bare app and answers after one RPC over RabbitMQ, through the
 * services' transport, to a service this same process serves (its health method, which the
 * transport answers itself: no handler work). Both ends in one process: a lower bound of the
 * two-process hop. Routes:
 *   POST /rpc          the form, the RPC, a JSON answer
 *   POST /rpc/signed   the same, the answer signed as the gateway signs (docs/api-decisions.md)
 *   POST /rpc/limited  the same, signed and counted against the per-IP limit in Redis
 * Prints `{ready, url}`.
 */
import { randomBytes } from 'node:crypto';
import express, { type RequestHandler } from 'express';
import { generateSigningKey, loadConfig, parseSigningKeys } from '../../libs/config/index.js';
import { createTransport, type ServedHandlers } from '../../libs/transport/index.js';
import { Signer, signAnswers } from '../../libs/http/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { rateLimitsFromConfig } from '../../services/gateway/rate-limits/rate-limits.js';
import { listenOnLoopback, runHelper } from './helper.js';

/** The service it serves: one whose queues no other process of the benchmark uses. */
const SERVED = 'webhooks';

runHelper(async () => {
  const id = randomBytes(4).toString('hex');
  const config = loadConfig({
    ...process.env,
    AMQP_PREFIX: `bench-floor.${id}`,
    REDIS_PREFIX: `bench-floor:${id}`,
    // As the benchmark's gateway: limits no run reaches.
    RATE_LIMIT_PER_IP_PER_MINUTE: '100000000',
  });
  const logger = createLogger('rpc-floor', 'warn');
  const transport = await createTransport(config, logger, 'floor');
  // No method but health is ever called; the others refuse.
  const refused = new Proxy({} as ServedHandlers<typeof SERVED>, {
    get: () => () => Promise.reject(new Error('not served by the floor')),
  });
  await transport.serve(SERVED, refused);
  const keys = parseSigningKeys(generateSigningKey());
  if (typeof keys === 'string') throw new Error(keys);
  const signed = signAnswers({ signer: await Signer.fromKeys(keys), ttlSeconds: 300 });
  const rateLimits = rateLimitsFromConfig(config, logger);

  const form = express.urlencoded({ extended: false });
  const answer: RequestHandler = (_req, res, next) => {
    transport.call(`${SERVED}.health`, {}).then(
      (health) => res.json({ data: { status: health.status } }),
      (error: unknown) => next(error),
    );
  };
  const app = express();
  app.post('/rpc', form, answer);
  app.post('/rpc/signed', signed, form, answer);
  app.post('/rpc/limited', signed, rateLimits.limits.perIp, form, answer);
  const served = await listenOnLoopback(app);
  return {
    info: { url: served.url },
    stop: async () => {
      await served.close();
      await rateLimits.close();
      await transport.close();
    },
  };
});
