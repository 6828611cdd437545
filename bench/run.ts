/**
 * `npm run bench`: what each public path costs in CPU, process by process, next to a bare
 * Express form endpoint measured in the same run; then download throughput through the gateway
 * (relayed, and redirected by a second gateway with DOWNLOAD_DELIVERY=redirect) next to a direct
 * read from the object store, with the peak memory and the time to the first byte.
 *
 * Every service runs in its own process as `npm run start:<service>` runs it (over RabbitMQ, rate
 * limits counted in Redis), the load comes from autocannon in another process, and the CPU time
 * of each process is read from /proc over each measured run: CPU per request does not depend on
 * how fast the database answers, throughput does. Linux only (/proc).
 *
 *   AMQP_URL=amqp://guest:guest@127.0.0.1:5672 REDIS_URL=redis://127.0.0.1:6379 npm run bench
 *
 *   BENCH_SECONDS=10       measured seconds per path (and per download row); plus 2 s warm-up
 *   BENCH_CONNECTIONS=10   concurrent connections of the load generator
 *   BENCH_DOWNLOAD_MB=64   size of the package of the download rows
 *   BENCH_ONLY=validate,downloads   only these paths (names in bench/paths.ts, and `downloads`);
 *                          validate-many is validate on a license with 20,000 activations
 *   BENCH_PROFILE=license  run that service under `node --cpu-prof`; the profile's path is printed
 *   MONGODB_URL=...        a MongoDB server of yours; unset, mongodb-memory-server starts one
 *
 * The report (Markdown, for docs/performance.md) goes to standard output, progress to standard
 * error: `npm run bench > run.md`. Ctrl+C stops every process the benchmark started.
 */
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { clockTicksPerSecond } from './cpu.js';
import { measureDownloads, type DownloadReport } from './downloads.js';
import { createFixture, MB } from './fixture.js';
import { LoadGenerator } from './load.js';
import {
  measureAtRate,
  measurePath,
  type MeasureContext,
  type PathMeasurement,
  type RateMeasurement,
} from './measure.js';
import {
  ACTIVATION_NOTE,
  benchPaths,
  DOWNLOAD_DECISION_NOTE,
  FLOOR_NOTE,
  MANY_ACTIVATIONS_NOTE,
  PATH_KEYS,
} from './paths.js';
import { Children } from './processes.js';
import { API_BASE } from '../libs/contracts/api-base.js';
import { comparisonNote } from './cpu-per-request.js';
import { renderReport, type RunInfo } from './report.js';
import { FEED_COMPARISONS } from './feed-paths.js';
import { readSettings, SettingsError, type BenchSettings } from './settings.js';
import { describeProcesses, measuredProcesses, serviceWarnings } from './running-system.js';
import { RATE_LIMIT, SERVICE_SETTINGS, startSystem } from './system.js';

/** How long the processes get to stop on SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 15_000;

const began = Date.now();
const progress = (message: string) =>
  console.error(`[bench ${((Date.now() - began) / 1000).toFixed(0).padStart(4)} s] ${message}`);

async function bench(
  settings: BenchSettings,
  children: Children,
  profileDir: string | undefined,
): Promise<string> {
  const loadAtStart = os.loadavg()[0] ?? 0;
  await children.startReaper();
  const system = await startSystem(children, settings, progress, profileDir);
  progress('creating the product, the licenses and the package through the management API');
  const fixture = await createFixture(
    system,
    Math.round(settings.downloadMb * MB),
    `${system.gatewayUrl}${API_BASE}/licenses/activate`,
  );
  const measured = measuredProcesses(system);
  const ticksPerSecond = clockTicksPerSecond();
  const { text: processes, notes: processNotes } = describeProcesses(system);
  const load = new LoadGenerator(system.loadWorker);
  const selected = (key: string) => settings.only === undefined || settings.only.includes(key);

  const measurements: PathMeasurement[] = [];
  const all = benchPaths(fixture, system.gatewayUrl);
  const baseline = all.find((p) => p.target === 'bare');
  if (!baseline) throw new Error('no baseline path');
  const paths = all.filter((p) => selected(p.key) || p === baseline);
  const context: MeasureContext = {
    load,
    baseline,
    origins: { bare: system.bareUrl, gateway: system.gatewayUrl, floor: system.floorUrl },
    measured,
    ticksPerSecond,
    seconds: settings.seconds,
    warmupSeconds: settings.warmupSeconds,
    connections: settings.connections,
  };
  for (const benchPath of paths) {
    progress(
      `${benchPath.name}: ${settings.warmupSeconds} s warm-up, ${settings.seconds} s measured`,
    );
    measurements.push(await measurePath(benchPath, context));
  }
  // Validate again at the rate validate-many answered at: their CPU per request compared at the
  // same rate, since that row runs as fast as the database finds an activation among 20,000.
  const many = measurements.find((m) => m.path.key === 'validate-many');
  const validate = paths.find((p) => p.key === 'validate');
  let validateAtManyRate: RateMeasurement | null = null;
  if (many && validate) {
    const rate = many.load.expected / many.load.seconds;
    progress(`${validate.name} at ${rate.toFixed(1)} requests a second: ${settings.seconds} s`);
    validateAtManyRate = await measureAtRate(validate, rate, context);
  }

  let downloads: DownloadReport | undefined;
  if (selected('downloads')) {
    progress(`downloads: ${settings.seconds} s each direct, relayed and redirected by the gateway`);
    downloads = await measureDownloads(system, fixture, measured, ticksPerSecond, settings.seconds);
  }

  const ran = (key: string) => measurements.some((m) => m.path.key === key);
  const notes = [
    ...(ran('floor') || ran('floor-signed') || ran('floor-limited') ? [FLOOR_NOTE] : []),
    ...(ran('download-decision') ? [DOWNLOAD_DECISION_NOTE] : []),
    ...(ran('activate-new') || ran('activate-deactivate') ? [ACTIVATION_NOTE] : []),
    ...(ran('validate-many') ? [MANY_ACTIVATIONS_NOTE] : []),
    ...[
      comparisonNote(measurements, 'validate-many', 'validate', validateAtManyRate),
      ...FEED_COMPARISONS.map(([feed, check]) => comparisonNote(measurements, feed, check)),
    ].filter((note) => note !== null),
    'In the baseline row, the service columns (in parentheses) and the shared processes show ' +
      "their background CPU while the baseline is loaded, over the baseline's requests: the " +
      'noise floor. RabbitMQ and Redis are shared with anything else running on the machine.',
    ...(settings.profile === undefined
      ? []
      : [`${settings.profile} ran under \`node --cpu-prof\`: its figures include the profiler's.`]),
    // Child processes seen at the start or at the end, and what the services logged.
    ...new Set([...processNotes, ...describeProcesses(system).notes]),
    ...serviceWarnings(system),
  ];
  return renderReport(
    runInfo(settings, loadAtStart, processes, fixture.uploadSeconds),
    measurements,
    downloads,
    notes,
  );
}

/** The settings and the machine of the run, as the report states them. */
function runInfo(
  settings: BenchSettings,
  loadAtStart: number,
  processes: string,
  uploadSeconds: number,
): RunInfo {
  const cpus = os.cpus();
  return {
    date: `${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown CPU',
    node: process.version,
    loadAverage: { start: loadAtStart, end: os.loadavg()[0] ?? 0 },
    seconds: settings.seconds,
    warmupSeconds: settings.warmupSeconds,
    connections: settings.connections,
    database:
      settings.mongodbUrl === undefined
        ? 'the server mongodb-memory-server starts, in its own process (its CPU per request ' +
          'depends entirely on that server; compare it only between runs on the same one)'
        : 'MONGODB_URL (not measured)',
    serviceSettings: Object.entries(SERVICE_SETTINGS)
      .filter(([name]) => !name.startsWith('RATE_LIMIT_'))
      .map(([name, value]) => `${name}=${value}`)
      .concat([`RATE_LIMIT_*=${RATE_LIMIT}`])
      .join(', '),
    processes,
    uploadSeconds,
  };
}

/** Where the profile of BENCH_PROFILE went, once its process has stopped. */
function profileFiles(dir: string): string[] {
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((name) => name.endsWith('.cpuprofile'))
        .map((name) => path.join(dir, name))
    : [];
}

function main(): void {
  let settings: BenchSettings;
  try {
    settings = readSettings(process.env, [...PATH_KEYS, 'downloads']);
  } catch (error) {
    if (!(error instanceof SettingsError)) throw error;
    console.error(`bench: ${error.message}`);
    process.exit(2);
  }
  if (!existsSync('/proc/self/stat')) {
    console.error('bench: reads CPU times from /proc, so it runs on Linux only.');
    process.exit(2);
  }

  const profileDir =
    settings.profile === undefined
      ? undefined
      : mkdtempSync(path.join(os.tmpdir(), `bench-profile-${settings.profile}-`));
  const children = new Children();
  let stopping = false;
  const stop = async (code: number, message?: string) => {
    if (stopping) return;
    stopping = true;
    if (message) console.error(message);
    await children.stopAll(STOP_GRACE_MS);
    if (profileDir !== undefined) {
      const files = profileFiles(profileDir);
      console.error(
        files.length > 0
          ? `bench: CPU profile of ${settings.profile}: ${files.join(', ')}`
          : `bench: no CPU profile of ${settings.profile} was written`,
      );
    }
    process.exit(code);
  };
  const onSignal = (code: number, name: string) => {
    // A second Ctrl+C: no more waiting (exiting kills every group left, support/process-groups.ts).
    if (stopping) process.exit(code);
    void stop(code, `bench: ${name}; stopping every process`);
  };
  process.on('SIGINT', () => onSignal(130, 'interrupted'));
  process.on('SIGTERM', () => onSignal(143, 'terminated'));

  // Every wait has its own bound; this one bounds the whole run, whatever happens.
  // Every path, the two download rows, validate again at validate-many's rate.
  const rows = PATH_KEYS.length + 3;
  const budgetSeconds = 900 + rows * (settings.seconds + settings.warmupSeconds + 120);
  setTimeout(
    () => void stop(1, `bench: gave up after ${budgetSeconds} s`),
    budgetSeconds * 1000,
  ).unref();

  bench(settings, children, profileDir).then(
    (report) => {
      console.log(report);
      void stop(0);
    },
    // After Ctrl+C, the failures of the processes being stopped are no news.
    (error: unknown) =>
      void stop(1, `bench failed: ${error instanceof Error ? error.message : String(error)}`),
  );
}

main();
