/**
 * The benchmark's output: Markdown, ready to paste into docs/performance.md. Pure functions of
 * the measurements, written with markdown-figures.ts from the figures of cpu-per-request.ts.
 */
import { microsPerRequest, projectMicros } from './cpu-per-request.js';
import type { DownloadReport } from './downloads.js';
import { markdownTable, ratio, significant } from './markdown-figures.js';
import type { PathMeasurement } from './measure.js';
import { SERVICES } from './settings.js';

/** The shared processes the services use, shown apart from the project's own. */
const INFRASTRUCTURE = ['RabbitMQ', 'database', 'Redis'] as const;

/** Answers with another status than expected, and connection errors: `12 × 500, 3 errors`. */
function unexpectedAnswers(m: PathMeasurement): string | null {
  const parts = Object.entries(m.load.statuses)
    .filter(([status]) => Number(status) !== m.path.expectedStatus)
    .map(([status, count]) => `${count} × HTTP ${status}`);
  if (m.load.errors > 0) parts.push(`${m.load.errors} connection errors or timeouts`);
  return parts.length > 0 ? parts.join(', ') : null;
}

const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');

/** The path tables: the main figures, then the project's CPU process by process. */
function pathTables(measurements: readonly PathMeasurement[]): string {
  const rows = measurements.map((m) => {
    const micros = microsPerRequest(m.cpuSeconds, m.load.answered);
    return { m, micros, project: projectMicros(m.path.target, micros) };
  });
  const base = rows.find((row) => row.m.path.target === 'bare')?.project ?? null;
  const perRequest = (value: number | null | undefined) => significant(value ?? null);
  const versus = (value: number | null | undefined) => ratio(value ?? null, base);

  const main = markdownTable(
    [
      'Path',
      'req/s',
      'p50 ms',
      'p99 ms',
      'Project CPU µs/req',
      '÷ bare Express',
      '÷ bare Express at the same rate',
      ...INFRASTRUCTURE.flatMap((name) => [`${name} µs/req`, '÷ bare Express']),
    ],
    rows.map(({ m, micros, project }) => [
      m.path.name,
      (m.load.expected / m.load.seconds).toFixed(0),
      ms(m.load.p50),
      ms(m.load.p99),
      perRequest(project),
      versus(project),
      m.path.target === 'bare' ? '' : ratio(project, m.bareAtSameRate),
      ...INFRASTRUCTURE.flatMap((name) => [perRequest(micros.get(name)), versus(micros.get(name))]),
    ]),
  );
  const byProcess = markdownTable(
    ['Path', 'answers', ...SERVICES.map((name) => `${name} µs (÷ bare)`)],
    rows.map(({ m, micros }) => [
      m.path.name,
      String(m.load.answered),
      ...SERVICES.map((name) =>
        m.path.target !== 'gateway'
          ? `(${perRequest(micros.get(name))})`
          : `${perRequest(micros.get(name))} (${versus(micros.get(name))})`,
      ),
    ]),
  );
  const warnings = rows
    .map(({ m }) => [m.path.name, unexpectedAnswers(m)] as const)
    .filter((entry): entry is readonly [string, string] => entry[1] !== null)
    .map(
      ([name, what]) => `- **${name}**: ${what} (counted in the answers; not in the latencies).`,
    );
  return [
    main,
    '',
    'CPU per request of each project process:',
    '',
    byProcess,
    ...(warnings.length > 0 ? ['', 'Unexpected answers:', '', ...warnings] : []),
  ].join('\n');
}

const mb = (bytes: number | null) => (bytes === null ? 'n/a' : (bytes / 2 ** 20).toFixed(0));

function downloadTable(report: DownloadReport): string {
  const base = report.rows[0];
  const speed = (row: DownloadReport['rows'][number]) => row.bytes / 2 ** 20 / row.seconds;
  const perMb = (row: DownloadReport['rows'][number], name: string) =>
    significant(((row.cpuSeconds.get(name) ?? Number.NaN) * 1000) / (row.bytes / 2 ** 20));
  return markdownTable(
    [
      'Read',
      'files',
      'MB/s',
      '÷ direct',
      'gateway CPU ms/MB',
      'download CPU ms/MB',
      'object store CPU ms/MB',
      'gateway peak RSS MB',
      'download peak RSS MB',
      'first byte ms (median)',
    ],
    report.rows.map((row) => [
      row.name,
      String(row.files),
      speed(row).toFixed(0),
      base ? ratio(speed(row), speed(base)) : 'n/a',
      perMb(row, 'gateway'),
      perMb(row, 'download'),
      perMb(row, 'object store'),
      mb(row.peakRss.gateway),
      mb(row.peakRss.download),
      significant(row.firstByteMs),
    ]),
  );
}

export interface RunInfo {
  date: string;
  cpus: number;
  cpuModel: string;
  node: string;
  /** The 1-minute load average when the run started and when it ended: other work's share. */
  loadAverage: { start: number; end: number };
  seconds: number;
  warmupSeconds: number;
  connections: number;
  database: string;
  serviceSettings: string;
  /** What each measured name is: `gateway 1234`, `RabbitMQ 567 (shared)`. */
  processes: string;
  uploadSeconds: number;
}

export function renderReport(
  info: RunInfo,
  measurements: readonly PathMeasurement[],
  downloads: DownloadReport | undefined,
  notes: readonly string[],
): string {
  const out = [
    `### Benchmark run of ${info.date}`,
    '',
    `- One run of \`npm run bench\` on ${info.cpus} × ${info.cpuModel}, Node ${info.node}; the ` +
      'figures come from this one run. Load average (1 min) at its start ' +
      `${info.loadAverage.start.toFixed(1)}, at its end ${info.loadAverage.end.toFixed(1)}.`,
    `- Each path: ${info.warmupSeconds} s of unmeasured warm-up, then ${info.seconds} s measured, ` +
      `${info.connections} connections, from autocannon in a process of its own.`,
    '- Every service in its own process (`node --import tsx services/<name>/main.ts`), RPC over ' +
      'RabbitMQ, rate limits counted in Redis with limits raised so that nothing is refused: ' +
      `${info.serviceSettings}.`,
    `- Database: ${info.database}.`,
    '- CPU per request: utime + stime of the process (and its children) from `/proc/<pid>/stat` ' +
      'over the measured run, divided by the requests answered in it. "Project" is the sum of ' +
      'gateway, license, update-catalog, download and management; "÷ bare Express" divides by ' +
      'the CPU per request of a bare Express app, in its own process, parsing the same form and ' +
      'answering JSON (the first row, as fast as it answers); "at the same rate" divides by its ' +
      "CPU per request when loaded at the path's rate of answers, right after the path (a " +
      'server answering few requests a second spends more on each). Latencies are of answers ' +
      'with the expected status.',
    `- Processes: ${info.processes}.`,
    '',
    pathTables(measurements),
  ];
  if (downloads) {
    const rowSeconds = downloads.rows[0]?.seconds ?? info.seconds;
    out.push(
      '',
      `Downloads: one ${mb(downloads.fileBytes)} MB file after another for ${rowSeconds.toFixed(0)} s ` +
        'per row, each checked by SHA-256 in the benchmark process; the package was uploaded ' +
        `through the management API in ${info.uploadSeconds.toFixed(1)} s. RSS before: gateway ` +
        `${mb(downloads.rssBefore.gateway)} MB, download ${mb(downloads.rssBefore.download)} MB; ` +
        (downloads.peaksReset
          ? 'peaks are reset at the start of each row.'
          : 'peaks are since the processes started (the kernel refused to reset them).'),
      '',
      downloadTable(downloads),
    );
  }
  if (notes.length > 0) out.push('', ...notes.map((note) => `- ${note}`));
  return out.join('\n');
}
