/** The benchmark's settings, read from the environment and checked before anything starts. */

export interface BenchSettings {
  /** Measured seconds per path. */
  seconds: number;
  /** Unmeasured seconds per path before it (JIT, pools and caches warm). */
  warmupSeconds: number;
  connections: number;
  /** Size of the package of the download rows. */
  downloadMb: number;
  amqpUrl: string;
  redisUrl: string;
  /** A MongoDB server of the caller's; unset, the benchmark starts one. */
  mongodbUrl: string | undefined;
  /** Only these paths (keys of bench/paths.ts), or every path. */
  only: string[] | undefined;
  /** A service to run under `node --cpu-prof`, or none. */
  profile: ServiceName | undefined;
}

export const SERVICES = ['gateway', 'license', 'update-catalog', 'download', 'management'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** The bare Express app's name in the measurements and the report: the baseline. */
export const BASELINE = 'bare Express';

/** The RPC floor app's name in the measurements and the report (bench/children/rpc-floor.ts). */
export const FLOOR = 'RPC floor';

export class SettingsError extends Error {}

function number(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  check: { integer?: boolean; min: number; max: number },
): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  const kind = check.integer ? 'a whole number' : 'a number';
  if (
    !Number.isFinite(value) ||
    (check.integer && !Number.isInteger(value)) ||
    value < check.min ||
    value > check.max
  ) {
    throw new SettingsError(
      `${name} must be ${kind} from ${check.min} to ${check.max}, got "${raw}".`,
    );
  }
  return value;
}

function required(env: NodeJS.ProcessEnv, name: string, why: string, example: string): string {
  const value = env[name]?.trim();
  if (!value) throw new SettingsError(`${name} is required: ${why}. Example: ${name}=${example}`);
  return value;
}

/** The settings of one run; a SettingsError says in one line what to fix. */
export function readSettings(env: NodeJS.ProcessEnv, knownPaths: readonly string[]): BenchSettings {
  const seconds = number(env, 'BENCH_SECONDS', 10, { min: 1, max: 3600 });
  const only = env.BENCH_ONLY?.trim()
    ? env.BENCH_ONLY.split(',').map((name) => name.trim())
    : undefined;
  const unknown = only?.filter((name) => !knownPaths.includes(name)) ?? [];
  if (unknown.length > 0) {
    throw new SettingsError(
      `BENCH_ONLY names unknown paths (${unknown.join(', ')}); known: ${knownPaths.join(', ')}.`,
    );
  }
  const profile = env.BENCH_PROFILE?.trim() || undefined;
  if (profile !== undefined && !(SERVICES as readonly string[]).includes(profile)) {
    throw new SettingsError(
      `BENCH_PROFILE must be one of ${SERVICES.join(', ')}, got "${profile}".`,
    );
  }
  return {
    seconds,
    warmupSeconds: Math.min(2, seconds),
    connections: number(env, 'BENCH_CONNECTIONS', 10, { integer: true, min: 1, max: 1000 }),
    downloadMb: number(env, 'BENCH_DOWNLOAD_MB', 64, { min: 0.001, max: 4096 }),
    amqpUrl: required(
      env,
      'AMQP_URL',
      'the services talk over RabbitMQ, as in production',
      'amqp://guest:guest@127.0.0.1:5672',
    ),
    redisUrl: required(
      env,
      'REDIS_URL',
      'the rate limits are counted in Redis, as in production',
      'redis://127.0.0.1:6379',
    ),
    mongodbUrl: env.MONGODB_URL?.trim() || undefined,
    only,
    profile: profile as ServiceName | undefined,
  };
}
