import { sleep } from '../../../bench/support/process-groups.js';
import { SteadyLoad, type ActivationLicense, type Outcome, type Target } from './load.js';
import type { Readiness, ServiceProcess } from './services.js';
import type { FaultSystem } from './system.js';

/**
 * What the scenarios share: their timing, the load each runs, and the broker restart (run by the
 * suite once and by `repeat-broker-restart.ts` many times in a row).
 */

/** Short, so a fault's INTERNAL_ERROR comes soon; every process gets it. */
export const RPC_TIMEOUT_MS = 3000;
/** What the client allows beyond it (HTTP, a busy two-core machine) before calling it hung. */
export const MARGIN_MS = 1000;
export const HUNG_AFTER_MS = RPC_TIMEOUT_MS + MARGIN_MS;
/** One validate and one activate every this many milliseconds: 20 requests a second. */
export const INTERVAL_MS = 100;
/** A scenario's load runs this long before its fault, and this long once it has recovered. */
export const BEFORE_MS = 2000;
export const AFTER_MS = 3000;
/** Correct answers in a row that mark the system recovered. */
export const RECOVERED_AFTER = 10;

export const targetOf = (service: ServiceProcess): Target => ({
  url: service.url,
  label: service.label,
});

export interface ScenarioLoad {
  load: SteadyLoad;
  licenses: ActivationLicense[];
  validateKey: string;
}

/**
 * The licenses of one scenario and its load, not started: validate of an activated identifier,
 * activate of new identifiers on an unlimited license and on one limited to `limit`.
 */
export async function scenarioLoad(
  system: FaultSystem,
  prefix: string,
  limit: number,
  target: () => Target = () => targetOf(system.gateway),
): Promise<ScenarioLoad> {
  const checked = await system.issueLicense({ activation_type: 'device', activation_limit: 1 });
  const identifier = `${prefix}-checked`;
  const first = await system.publicPost(
    'activate',
    { license_key: checked.key, identifier },
    { timeoutMs: HUNG_AFTER_MS },
  );
  if (first.status !== 200)
    throw new Error(`activate: ${first.status} ${JSON.stringify(first.body)}`);
  const open = await system.issueLicense({ activation_type: 'device', activation_limit: 0 });
  const capped = await system.issueLicense({ activation_type: 'device', activation_limit: limit });
  const licenses = [
    { key: open.key, limit: 0 },
    { key: capped.key, limit },
  ];
  const load = new SteadyLoad({
    target,
    send: (to, operation, fields, timeoutMs) =>
      system.publicPost(operation, fields, { timeoutMs, gatewayUrl: to.url }),
    validate: { key: checked.key, identifier },
    activations: licenses,
    identifierPrefix: prefix,
    intervalMs: INTERVAL_MS,
    timeoutMs: HUNG_AFTER_MS,
  });
  return { load, licenses, validateKey: checked.key };
}

export interface BrokerRestart {
  stoppedAt: number;
  restartedAt: number;
  /** When the broker took connections again. */
  upAt: number;
  /** When the first of `RECOVERED_AFTER` correct answers in a row was sent. */
  recoveredAt: number;
  /** The gateway's /readyz while the broker was gone. */
  whileGone: Readiness | undefined;
  outcomes: Outcome[];
  /** Requests sent once the system had recovered that did not get a correct answer. */
  lostAfterRecovery: Outcome[];
}

/**
 * RabbitMQ stopped under a running load and started again about three seconds later (as an
 * operator restarts it); the load runs until the system has answered `RECOVERED_AFTER` requests
 * in a row correctly, and `AFTER_MS` more. Stops the load.
 */
export async function restartBroker(system: FaultSystem, load: SteadyLoad): Promise<BrokerRestart> {
  load.start();
  await sleep(BEFORE_MS);
  const stoppedAt = Date.now();
  await system.broker.stop();
  await sleep(1500);
  const whileGone = await system.gateway.readiness();
  await sleep(1500);
  const restartedAt = Date.now();
  await system.broker.start();
  const upAt = Date.now();
  const recoveredAt = await load.recovery(upAt, RECOVERED_AFTER, 30_000);
  await sleep(AFTER_MS);
  const outcomes = await load.stop();
  const lostAfterRecovery = load.sentSince(recoveredAt).filter((o) => o.verdict !== 'ok');
  return { stoppedAt, restartedAt, upAt, recoveredAt, whileGone, outcomes, lostAfterRecovery };
}
