import { accountActivations, type ActivationAccount } from './support/activations.js';
import {
  describeFailures,
  tally,
  type ActivationLicense,
  type Outcome,
  type SteadyLoad,
  type Target,
} from './support/load.js';
import { sleep } from '../../bench/support/process-groups.js';
import { FaultReport, type FaultRow } from './support/report.js';
import type { Answer } from './support/http.js';
import {
  AFTER_MS,
  BEFORE_MS,
  HUNG_AFTER_MS,
  INTERVAL_MS,
  MARGIN_MS,
  RECOVERED_AFTER,
  RPC_TIMEOUT_MS,
  restartBroker,
  scenarioLoad as loadOf,
  targetOf,
  type ScenarioLoad,
} from './support/scenario.js';
import type { Readiness, ServiceProcess } from './support/services.js';
import { FaultSystem, QUEUE_TYPE } from './support/system.js';

/**
 * The system under faults: every service its own process (two license replicas), real RabbitMQ,
 * Redis and MongoDB, a steady load of validate and activate through the public API, and one
 * fault per test. Each test checks what the clients were told while it lasted and what the
 * license records show afterwards; the table of all of them is printed at the end.
 */

/** The rate limits' documented wait for Redis, and what a request may add to it here. */
const REDIS_WAIT_MS = 500;
const REDIS_MARGIN_MS = 400;

let system: FaultSystem;
const report = new FaultReport(
  `Fault suite: every service its own process, two license replicas, ${QUEUE_TYPE} queues; ` +
    `a steady load of ` +
    `validate and activate (${(2 * 1000) / INTERVAL_MS} requests/s) under each fault`,
  [
    `correct: the right answer (activate: activated, or ACTIVATION_LIMIT_REACHED once full); ` +
      `failed: INTERNAL_ERROR, another answer or a failed connection;`,
    `hung: no answer within RPC_TIMEOUT_MS ${RPC_TIMEOUT_MS} + ${MARGIN_MS} ms (the client's ` +
      `own time limit); slowest: the slowest answered request.`,
  ],
);

beforeAll(async () => {
  system = await FaultSystem.start({ rpcTimeoutMs: RPC_TIMEOUT_MS });
}, 240_000);

/** The loads of the running scenario: stopped after it even when it fails half-way. */
const loads = new Set<SteadyLoad>();

afterEach(async () => {
  for (const load of loads) await load.stop();
  loads.clear();
}, 30_000);

afterAll(async () => {
  report.print();
  for (const exit of system?.unexpectedExits() ?? []) process.stderr.write(`${exit}\n`);
  await system?.stop();
}, 60_000);

/** A scenario's load, stopped after the scenario even when it fails half-way. */
async function scenarioLoad(
  prefix: string,
  limit: number,
  target?: () => Target,
): Promise<ScenarioLoad> {
  const scenario = await loadOf(system, prefix, limit, target);
  loads.add(scenario.load);
  return scenario;
}

/** The activation accounts of a scenario's licenses, as notes of its row; their problems. */
async function accountFor(
  row: FaultRow,
  load: SteadyLoad,
  licenses: ActivationLicense[],
): Promise<string[]> {
  const accounts: ActivationAccount[] = [];
  for (const license of licenses) {
    accounts.push(await accountActivations(system, load, license, HUNG_AFTER_MS));
  }
  for (const a of accounts) {
    row.notes.push(
      `activations (limit ${a.limit || 'none'}): ${a.attempted} asked, ${a.toldActivated} told ` +
        `activated, ${a.toldRefused} told limit reached, ${a.uncertain} uncertain and retried; ` +
        `on record ${a.recordedBefore} before retries, ${a.recordedAfter} after`,
    );
  }
  return accounts.flatMap((a) => a.problems);
}

/** Polls /readyz of every process until each answer passes `wanted`; their last answers. */
async function readinessUntil(
  services: ServiceProcess[],
  wanted: (readiness: Readiness) => boolean,
  timeoutMs: number,
): Promise<Readiness[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const states = await Promise.all(
      services.map((service) => service.readiness(3000).catch(() => undefined)),
    );
    if (states.every((state) => state !== undefined && wanted(state))) return states as Readiness[];
    if (Date.now() > until) {
      throw new Error(
        `readiness not as expected within ${timeoutMs} ms: ` +
          services.map((s, i) => `${s.label} ${JSON.stringify(states[i])}`).join('; '),
      );
    }
    await sleep(250);
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** A process told to stop logs `stopping` before it ends (libs/process): it stopped, not crashed. */
const saidStopping = (service: ServiceProcess) =>
  service.group.lines.some((line) => line.msg === 'stopping');

describe('faults under a steady load of validate and activate', () => {
  beforeEach(async () => {
    await system.restore();
  }, 120_000);

  test('a license replica killed with SIGKILL: every request answers correctly or INTERNAL_ERROR within the RPC timeout, and the activation count stays exact', async () => {
    const { load, licenses } = await scenarioLoad('kill', 15);
    load.start();
    await sleep(BEFORE_MS);
    const [victim] = system.liveLicenseReplicas();
    if (victim === undefined) throw new Error('no license replica');
    // Paused for a moment first, so that it dies holding requests the broker gave it (a crash in
    // the middle of work), not between two requests.
    victim.group.signal('SIGSTOP');
    await sleep(500);
    const killedAt = Date.now();
    await victim.kill();
    await sleep(5000);
    const outcomes = await load.stop();

    const row = report.add('license replica SIGKILL', tally(outcomes));
    const held = outcomes.filter((o) => o.sentAt < killedAt && o.sentAt + o.ms > killedAt);
    row.notes.push(
      `${held.length} requests unanswered when the replica was killed: ` +
        `${held.filter((o) => o.verdict === 'ok').length} answered correctly, ` +
        `${held.filter((o) => o.verdict === 'internal').length} INTERNAL_ERROR`,
    );
    const problems = await accountFor(row, load, licenses);
    expect(held.length).toBeGreaterThan(0);
    expect(describeFailures(outcomes.filter((o) => o.verdict === 'wrong'))).toEqual([]);
    expect(describeFailures(outcomes.filter((o) => o.verdict === 'hung'))).toEqual([]);
    expect(problems).toEqual([]);
    row.passed = true;
  }, 120_000);

  test('a rolling SIGTERM restart of both license replicas: no request fails', async () => {
    const { load, licenses } = await scenarioLoad('rolling', 40);
    load.start();
    await sleep(BEFORE_MS);
    const stops: string[] = [];
    for (const old of system.liveLicenseReplicas()) {
      const started = Date.now();
      const clean = await old.terminate(30_000);
      stops.push(
        `${old.label} ${clean && saidStopping(old) ? 'stopped' : 'NOT STOPPED CLEANLY'} after ` +
          seconds(Date.now() - started),
      );
      await system.startService('license');
    }
    await sleep(AFTER_MS);
    const outcomes = await load.stop();

    const row = report.add('rolling SIGTERM restart of the license replicas', tally(outcomes));
    row.notes.push(`replicas: ${stops.join(', ')}; each replaced once its successor was ready`);
    const problems = await accountFor(row, load, licenses);
    expect(describeFailures(outcomes)).toEqual([]);
    expect(stops.filter((stop) => stop.includes('NOT STOPPED'))).toEqual([]);
    expect(problems).toEqual([]);
    row.passed = true;
  }, 180_000);

  test('the gateway SIGTERMed with requests in flight: they complete, and a second gateway takes the later load', async () => {
    const first = system.gateway;
    const second = await system.startService('gateway');
    let current = first;
    const { load, licenses } = await scenarioLoad('gateway', 30, () => targetOf(current));
    load.start();
    await sleep(BEFORE_MS);
    // Requests pile up in the first gateway: the license replicas are paused, so the requests
    // it has taken wait there for their answers when it is told to stop.
    const replicas = system.liveLicenseReplicas();
    for (const replica of replicas) replica.group.signal('SIGSTOP');
    await sleep(500);
    current = second; // the load balancer takes the first gateway out
    const inFlight = load.inFlight(first.label);
    const signalled = Date.now();
    first.term();
    await sleep(700);
    for (const replica of replicas) replica.group.signal('SIGCONT');
    const exited = await first.group.gone(30_000);
    const stopMs = Date.now() - signalled;
    await sleep(AFTER_MS);
    const outcomes = await load.stop();

    const toFirst = outcomes.filter((o) => o.gateway === first.label);
    const row = report.add('gateway SIGTERM with requests in flight', tally(outcomes));
    row.notes.push(
      `${inFlight} requests in flight at SIGTERM; ${toFirst.length} sent to the stopped gateway, ` +
        `${toFirst.filter((o) => o.verdict === 'ok').length} answered correctly; it ended after ` +
        `${seconds(stopMs)}; ${outcomes.length - toFirst.length} requests went to the second gateway`,
    );
    const problems = await accountFor(row, load, licenses);
    expect(inFlight).toBeGreaterThanOrEqual(5);
    expect(describeFailures(toFirst)).toEqual([]);
    expect(describeFailures(outcomes)).toEqual([]);
    expect(exited && saidStopping(first)).toBe(true);
    expect(problems).toEqual([]);
    row.passed = true;
  }, 120_000);

  test('RabbitMQ restarted: INTERNAL_ERROR while it is gone, then recovery by itself with no process restarted', async () => {
    const processes = system.processes().filter((service) => service.alive());
    const { load, licenses } = await scenarioLoad('broker', 40);
    const { stoppedAt, restartedAt, upAt, recoveredAt, whileGone, outcomes } = await restartBroker(
      system,
      load,
    );

    const row = report.add('RabbitMQ stopped and started again', tally(outcomes));
    const during = outcomes.filter((o) => o.sentAt >= stoppedAt && o.sentAt < recoveredAt);
    row.notes.push(
      `broker down ${seconds(upAt - stoppedAt)} (start took ${seconds(upAt - restartedAt)}); ` +
        `recovered ${seconds(recoveredAt - upAt)} after it was back; ` +
        `${during.filter((o) => o.verdict === 'internal').length} INTERNAL_ERROR meanwhile; ` +
        `gateway /readyz while it was gone: ${JSON.stringify(whileGone)}`,
    );
    const problems = await accountFor(row, load, licenses);
    expect(describeFailures(outcomes.filter((o) => o.verdict === 'wrong'))).toEqual([]);
    expect(describeFailures(outcomes.filter((o) => o.verdict === 'hung'))).toEqual([]);
    expect(during.filter((o) => o.verdict === 'internal').length).toBeGreaterThan(0);
    expect(describeFailures(load.sentSince(recoveredAt))).toEqual([]);
    expect(whileGone?.status).toBe(503);
    expect(whileGone?.checks.rabbitmq).toBeDefined();
    expect(whileGone?.checks.rabbitmq).not.toBe('ok');
    expect(processes.filter((service) => !service.alive()).map((s) => s.label)).toEqual([]);
    expect(problems).toEqual([]);
    row.passed = true;
  }, 150_000);

  test('MongoDB stopped for ten seconds: readiness fails and requests get INTERNAL_ERROR meanwhile, then recovery by itself', async () => {
    const processes = system.processes().filter((service) => service.alive());
    const usingDatabase = [
      ...system.liveLicenseReplicas(),
      system.service('update-catalog'),
      system.service('download'),
    ];
    const { load, licenses } = await scenarioLoad('mongo', 40);
    load.start();
    await sleep(BEFORE_MS);
    const stoppedAt = Date.now();
    await system.mongoProxy.stop();
    const notReady = await readinessUntil(
      usingDatabase,
      (r) => r.status === 503 && r.checks.mongodb !== undefined && r.checks.mongodb !== 'ok',
      8000,
    );
    const notReadyAfter = Date.now() - stoppedAt;
    await sleep(stoppedAt + 10_000 - Date.now());
    await system.mongoProxy.start();
    const restartedAt = Date.now();
    await readinessUntil(usingDatabase, (r) => r.status === 200, 30_000);
    const readyAfter = Date.now() - restartedAt;
    const recoveredAt = await load.recovery(restartedAt, RECOVERED_AFTER, 30_000);
    await sleep(AFTER_MS);
    const outcomes = await load.stop();

    const row = report.add('MongoDB stopped for 10 s', tally(outcomes));
    const during = outcomes.filter((o) => o.sentAt >= stoppedAt && o.sentAt < recoveredAt);
    row.notes.push(
      `/readyz 503 on every process using it ${seconds(notReadyAfter)} after the stop ` +
        `(${notReady[0]?.checks.mongodb}), 200 again ${seconds(readyAfter)} after the start; ` +
        `requests correct again ${seconds(recoveredAt - restartedAt)} after the start; ` +
        `${during.filter((o) => o.verdict === 'internal').length} INTERNAL_ERROR meanwhile`,
    );
    const problems = await accountFor(row, load, licenses);
    expect(describeFailures(outcomes.filter((o) => o.verdict === 'wrong'))).toEqual([]);
    expect(describeFailures(outcomes.filter((o) => o.verdict === 'hung'))).toEqual([]);
    expect(during.filter((o) => o.verdict === 'internal').length).toBeGreaterThan(0);
    expect(describeFailures(load.sentSince(recoveredAt))).toEqual([]);
    expect(processes.filter((service) => !service.alive()).map((s) => s.label)).toEqual([]);
    expect(problems).toEqual([]);
    row.passed = true;
  }, 150_000);

  test('Redis stopped: the rate limits fail open (requests pass without limiting) and none waits past the 500 ms bound', async () => {
    const main = system.gateway;
    const { load, licenses, validateKey } = await scenarioLoad('redis', 40, () => targetOf(main));
    // A gateway of its own with a low per-IP limit (and keys of its own in Redis), to see the
    // limit hold while Redis runs and requests pass unlimited once it is gone.
    const perMinute = 20;
    const limited = await system.startService('gateway', {
      RATE_LIMIT_PER_IP_PER_MINUTE: String(perMinute),
      REDIS_PREFIX: `faults-limited-${Date.now()}`,
    });
    const burst = async (count: number) => {
      const answers = [];
      for (let i = 0; i < count; i++) {
        answers.push(
          await system.publicPost(
            'validate',
            { license_key: validateKey },
            { timeoutMs: HUNG_AFTER_MS, gatewayUrl: limited.url },
          ),
        );
      }
      return answers;
    };
    let withRedis: Answer[];
    let withoutRedis: Answer[];
    let readiness: Readiness | undefined;
    let killedAt: number;
    try {
      withRedis = await burst(perMinute + 5);
      load.start();
      await sleep(BEFORE_MS);
      killedAt = Date.now();
      await system.redis.kill();
      withoutRedis = await burst(perMinute + 10);
      readiness = await main.readiness();
      await sleep(AFTER_MS);
    } finally {
      await load.stop();
      await limited.terminate();
    }
    const outcomes = load.outcomes;

    const afterKill = outcomes.filter((o) => o.sentAt >= killedAt);
    const row = report.add('Redis killed (rate limits fail open)', tally(outcomes));
    const beforeKill = outcomes.filter((o) => o.sentAt < killedAt);
    const times = (of: Outcome[], op: string) => of.filter((o) => o.op === op).map((o) => o.ms);
    row.notes.push(
      `before the kill: validate ${spread(times(beforeKill, 'validate'))}, activate ` +
        `${spread(times(beforeKill, 'activate'))}`,
      `after the kill (bound ${REDIS_WAIT_MS} + ${REDIS_MARGIN_MS} ms): validate ` +
        `${spread(times(afterKill, 'validate'))}, activate ${spread(times(afterKill, 'activate'))}; the limited ` +
        `gateway's ${withoutRedis.length} validates past its limit ${spread(withoutRedis.map((a) => a.ms))}`,
      `per-IP limit ${perMinute}/min with Redis: ${withRedis.filter((a) => a.status === 200).length} ` +
        `passed, ${withRedis.filter((a) => a.status === 429).length} refused; without Redis: ` +
        `${withoutRedis.filter((a) => a.status === 200).length} of ${withoutRedis.length} passed; ` +
        `gateway /readyz ${JSON.stringify(readiness)}`,
    );
    const problems = await accountFor(row, load, licenses);
    const statuses = (answers: Answer[]) => answers.map((a) => a.status);
    expect(statuses(withRedis)).toEqual([
      ...Array<number>(perMinute).fill(200),
      ...Array<number>(5).fill(429),
    ]);
    expect(statuses(withoutRedis)).toEqual(Array<number>(withoutRedis.length).fill(200));
    expect(describeFailures(outcomes)).toEqual([]);
    const tooSlow = (ms: number) => ms > REDIS_WAIT_MS + REDIS_MARGIN_MS;
    const slowRequests = [
      ...afterKill.map((o) => ({ what: `${o.op} ${o.identifier}`, ms: o.ms })),
      ...withoutRedis.map((a) => ({ what: 'validate on the limited gateway', ms: a.ms })),
    ]
      .filter(({ ms }) => tooSlow(ms))
      .map(({ what, ms }) => `${what}: ${Math.round(ms)} ms`);
    expect(slowRequests).toEqual([]);
    expect(readiness?.status).toBe(200);
    expect(readiness?.checks.redis).toMatch(/^degraded/);
    expect(problems).toEqual([]);
    row.passed = true;
  }, 150_000);
});

/** `median / slowest ms` of some durations. */
function spread(ms: number[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
  return `median ${Math.round(median)} / slowest ${Math.round(sorted.at(-1) ?? 0)} ms`;
}
