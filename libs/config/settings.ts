/** Settings read into the form their users take: the proxy trust, the task schedule, URLs to log. */
import { ConfigError } from './load.js';
import type { Config } from './schema.js';

/**
 * Express's `trust proxy` setting from TRUST_PROXY: `false`, `true`, a hop count, or a list of
 * addresses/subnets. It decides which address counts as the client IP (spec 2.2 last_check_ip).
 */
export function trustProxySetting(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false' || value === '') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/** The license service's schedule as configured. */
export function scheduleSettings(
  config: Pick<
    Config,
    | 'SCHEDULED_TASKS'
    | 'EXPIRY_TASK_EVERY'
    | 'LEASE_TASK_EVERY'
    | 'PRUNE_TASK_EVERY'
    | 'SCHEDULER_POLL_EVERY'
    | 'SCHEDULED_TASK_TIMEOUT'
  >,
) {
  return {
    enabled: config.SCHEDULED_TASKS === 'on',
    expiryEvery: config.EXPIRY_TASK_EVERY,
    leaseEvery: config.LEASE_TASK_EVERY,
    pruneEvery: config.PRUNE_TASK_EVERY,
    pollEvery: config.SCHEDULER_POLL_EVERY,
    taskTimeoutMs: intervalMs(config.SCHEDULED_TASK_TIMEOUT),
  };
}

const UNIT_MS = { second: 1000, minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

/** Milliseconds of an interval written as the config accepts it (`5 minutes`). */
export function intervalMs(value: string): number {
  const match = /^([1-9][0-9]*) (second|minute|hour|day)s?$/.exec(value);
  if (!match) throw new ConfigError(`not an interval: ${value}`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** A URL as it may be shown or logged: the password, if any, left out. */
export function displayUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^:/@]*):[^@/]*@/i, (_all, scheme, user) =>
    user === '' ? scheme : `${scheme}${user}@`,
  );
}
