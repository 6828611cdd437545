/**
 * `npm run bench`: throughput and latency of validate, activate and the update check through the
 * gateway, over RabbitMQ, next to a bare Express endpoint measured in the same run; then download
 * throughput through the gateway next to a direct read from the object store, with the peak
 * memory of the process that runs every service. The absolute numbers depend on the machine and
 * on the MongoDB in use; the ratios to the baselines are what to compare.
 *
 *   AMQP_URL=amqp://... [MONGODB_URL=mongodb://...] [BENCH_SECONDS=10] [BENCH_CONNECTIONS=20]
 *   [BENCH_DOWNLOAD_MB=64]
 */
import { createHash, randomBytes } from 'node:crypto';
import { Agent, get as httpGet, request as httpRequest } from 'node:http';
import os from 'node:os';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import autocannon from 'autocannon';
import express from 'express';
import { loadConfig } from '../libs/config/index.js';
import { listen, type Listening } from '../libs/http/index.js';
import { startSystem, type RunningSystem } from '../services/all-in-one/system.js';

const API_BASE = '/api/index.php/v1/licensing';
const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) {
    console.error(`${name} must be a positive number, got "${raw}".`);
    process.exit(1);
  }
  return value;
}

const seconds = positiveNumber('BENCH_SECONDS', 10);
const connections = Math.round(positiveNumber('BENCH_CONNECTIONS', 20));
// A short unmeasured run first, so JIT, connection pools and caches are warm for every row.
const warmupSeconds = Math.min(1, seconds);

interface Target {
  name: string;
  url: string;
  /** GET when there is no body. */
  method?: 'GET' | 'POST';
  /** Form body; `[<id>]` is replaced by a fresh id per request when `distinct` is set. */
  body?: string;
  distinct?: boolean;
}

interface Row {
  name: string;
  okPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  statuses: string;
}

const form = (fields: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)]))
    .toString()
    // autocannon's id placeholder must survive URL encoding.
    .replace(/%5B%3Cid%3E%5D/g, '[<id>]');

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] as number;
}

/** One request outside the measurement, so a broken path fails loudly instead of as non-2xx. */
async function post(target: Target): Promise<{ status: number; text: string }> {
  if (target.method === 'GET') {
    const res = await fetch(target.url);
    return { status: res.status, text: await res.text() };
  }
  const body = (target.body ?? '').replace(/\[<id>\]/g, randomBytes(6).toString('hex'));
  const res = await fetch(target.url, { method: 'POST', headers: FORM, body });
  return { status: res.status, text: await res.text() };
}

async function measure(target: Target, duration: number): Promise<Row> {
  // autocannon's histogram has 1 ms resolution; the baseline answers faster than that, so
  // latencies of 2xx responses are recorded here with hrtime precision.
  const latencies: number[] = [];
  const result = await autocannon({
    url: target.url,
    ...(target.method === 'GET'
      ? { method: 'GET' as const }
      : { method: 'POST' as const, headers: FORM, body: target.body }),
    idReplacement: target.distinct === true,
    connections,
    duration,
    setupClient: (client) => {
      client.on('response', (status, _bytes, ms) => {
        if (status >= 200 && status < 300) latencies.push(ms);
      });
    },
  });
  const sorted = Float64Array.from(latencies).sort();
  const statuses = Object.entries(result.statusCodeStats ?? {})
    .filter(([code]) => !code.startsWith('2'))
    .map(([code, stat]) => `${code}×${stat.count ?? 0}`)
    .join(' ');
  return {
    name: target.name,
    okPerSecond: result['2xx'] / result.duration,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    errors: result.errors,
    non2xx: result.non2xx,
    statuses,
  };
}

function table(rows: Row[]): string {
  const base = rows[0] as Row;
  const fixed = (n: number, digits: number) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
  const header = [
    'target',
    'req/s (2xx)',
    'p50 ms',
    'p99 ms',
    'errors',
    'non-2xx',
    'req/s ÷ base',
    'p50 ÷ base',
  ];
  const lines = rows.map((r) => [
    r.name,
    fixed(r.okPerSecond, 0),
    fixed(r.p50, 2),
    fixed(r.p99, 2),
    String(r.errors),
    r.non2xx === 0 ? '0' : `${r.non2xx} (${r.statuses})`,
    fixed(r.okPerSecond / base.okPerSecond, 3),
    fixed(r.p50 / base.p50, 1),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const render = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ');
  return [render(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(render)].join(
    '\n',
  );
}

const MB = 1024 * 1024;

/** A package of `size` bytes, generated chunk by chunk, uploaded through the management API. */
async function uploadPackage(
  managementUrl: string,
  token: string,
  versionId: number,
  size: number,
): Promise<{ size: number; sha256: string; object_key: string }> {
  const seed = randomBytes(64 * 1024);
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  async function* body() {
    yield Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.zip"\r\n` +
        'Content-Type: application/zip\r\n\r\n',
    );
    for (let sent = 0, i = 0; sent < size; sent += seed.length, i++) {
      const chunk = Buffer.from(seed.subarray(0, Math.min(seed.length, size - sent)));
      chunk.writeUInt32BE(i, 0);
      yield chunk;
    }
    yield Buffer.from(`\r\n--${boundary}--\r\n`);
  }
  const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(
      `${managementUrl}/admin/v1/versions/${versionId}/files`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    pipeline(Readable.from(body()), req).catch(reject);
  });
  if (answer.status !== 201) throw new Error(`upload: HTTP ${answer.status} ${answer.text}`);
  return (JSON.parse(answer.text) as { data: { size: number; sha256: string; object_key: string } })
    .data;
}

/** Counts the bytes of a stream and hashes them (a client that checks what it saved). */
function sink(onBytes: (n: number) => void, hash = createHash('sha256')) {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      onBytes(chunk.length);
      done();
    },
  });
}

interface ThroughputRow {
  name: string;
  files: number;
  mbPerSecond: number;
  peakRssMb: number;
}

/** Reads one file after another for `duration` seconds; MB/s and the peak RSS meanwhile. */
async function throughput(
  name: string,
  duration: number,
  readOnce: () => Promise<number>,
): Promise<ThroughputRow> {
  let peak = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  const started = process.hrtime.bigint();
  const until = Date.now() + duration * 1000;
  let bytes = 0;
  let files = 0;
  try {
    do {
      bytes += await readOnce();
      files += 1;
    } while (Date.now() < until);
  } finally {
    clearInterval(sampler);
  }
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { name, files, mbPerSecond: bytes / MB / seconds, peakRssMb: peak / MB };
}

function throughputTable(rows: ThroughputRow[]): string {
  const base = rows[0] as ThroughputRow;
  const header = ['target', 'files', 'MB/s', 'MB/s ÷ base', 'peak RSS MB'];
  const lines = rows.map((r) => [
    r.name,
    String(r.files),
    r.mbPerSecond.toFixed(1),
    (r.mbPerSecond / base.mbPerSecond).toFixed(3),
    r.peakRssMb.toFixed(0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const render = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0)))
      .join('  ');
  return [render(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(render)].join(
    '\n',
  );
}

async function main(): Promise<void> {
  if (!process.env.AMQP_URL) {
    console.error(
      'bench: AMQP_URL is required, so that the numbers include RabbitMQ between the gateway and ' +
        'the services. Example: AMQP_URL=amqp://guest:guest@127.0.0.1:5672 npm run bench',
    );
    process.exit(1);
  }
  const id = randomBytes(4).toString('hex');
  const config = loadConfig({
    ...process.env,
    PORT: '0',
    ADMIN_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    AMQP_PREFIX: `bench.${id}`,
    MONGODB_DB_PREFIX: `bench${id}`,
    ADMIN_TOKENS: `bench-${id}`,
    REDIS_PREFIX: `bench.${id}`,
    // The gateway's rate limits (spec 8) would answer most requests with 429; the counting
    // itself (in Redis when REDIS_URL is set) stays on the measured path.
    RATE_LIMIT_PER_IP_PER_MINUTE: '1000000000',
    RATE_LIMIT_ACTIVATIONS_PER_KEY_PER_HOUR: '1000000000',
    RATE_LIMIT_UPDATES_PER_MINUTE: '1000000000',
    RATE_LIMIT_DOWNLOADS_PER_MINUTE: '1000000000',
  });
  const downloadBytes = Math.round(positiveNumber('BENCH_DOWNLOAD_MB', 64) * MB);

  const baselineApp = express();
  baselineApp.post('/ok', express.urlencoded({ extended: false }), (_req, res) => {
    res.json({ data: { ok: true } });
  });

  let system: RunningSystem | undefined;
  let baseline: Listening | undefined;
  try {
    const started = Date.now();
    system = await startSystem({ config });
    baseline = await listen(baselineApp, 0, '127.0.0.1');

    const product = await system.transport.call('update-catalog.createProduct', {
      title: `Bench ${id}`,
    });
    const plan = await system.transport.call('license.createPlan', {
      name: `Bench unlimited ${id}`,
      activation_type: 'device',
      activation_limit: 0,
    });
    const { transport } = system;
    const newLicense = () =>
      transport.call('license.createLicense', { product_id: product.id, plan_id: plan.id });
    // The distinct-identifier run fills its own license, so it cannot slow the other rows.
    const [license, fillLicense] = [await newLicense(), await newLicense()];
    // A published version with a package, so the update check and the downloads have a file.
    const version = await transport.call('update-catalog.createVersion', {
      product_id: product.id,
      version: '1.0.0',
    });
    const uploadStarted = Date.now();
    const stored = await uploadPackage(
      system.managementUrl,
      `bench-${id}`,
      version.id,
      downloadBytes,
    );
    const uploadMs = Date.now() - uploadStarted;

    const api = `${system.gatewayUrl}${API_BASE}/licenses`;
    const fields = {
      license_key: license.license_key,
      product_id: product.id,
      identifier: 'bench-device',
    };
    const targets: Target[] = [
      { name: 'baseline: bare Express', url: `${baseline.url}/ok`, body: form(fields) },
      { name: 'validate', url: `${api}/validate`, body: form(fields) },
      { name: 'activate (same identifier)', url: `${api}/activate`, body: form(fields) },
      {
        name: 'activate (new identifier each)',
        url: `${api}/activate`,
        body: form({ ...fields, license_key: fillLicense.license_key, identifier: 'bench-[<id>]' }),
        distinct: true,
      },
      {
        name: 'update check (with key)',
        url: `${system.gatewayUrl}${API_BASE}/updates/${product.id}?dlid=${license.license_key}`,
        method: 'GET',
      },
    ];
    // Activate first, so validate measures the path of an activated identifier.
    for (const target of [targets[2], targets[1], targets[3], targets[0], targets[4]] as Target[]) {
      const { status, text } = await post(target);
      if (status !== 200) throw new Error(`${target.name}: HTTP ${status} ${text}`);
    }

    const mongo = process.env.MONGODB_URL
      ? 'MONGODB_URL'
      : `embedded mongodb-memory-server${
          process.env.MONGOMS_SYSTEM_BINARY ? ` (binary ${process.env.MONGOMS_SYSTEM_BINARY})` : ''
        }`;
    const cpus = os.cpus();
    console.log(
      [
        'Licensing service benchmark',
        `  system:      all services in this process (startSystem), RPC over RabbitMQ, started in ${Date.now() - started} ms`,
        `  MongoDB:     ${mongo}`,
        `  Redis:       ${process.env.REDIS_URL ? 'REDIS_URL (rate-limit counters)' : 'none (rate-limit counters in memory)'}`,
        `  load:        autocannon, ${connections} connections, ${seconds} s per row after ${warmupSeconds} s warm-up, same process`,
        `  machine:     ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, Node ${process.version}`,
        `  package:     ${(downloadBytes / MB).toFixed(0)} MB, uploaded through the management API in ${uploadMs} ms`,
        '',
      ].join('\n'),
    );

    const rows: Row[] = [];
    for (const target of targets) {
      await measure(target, warmupSeconds);
      const row = await measure(target, seconds);
      rows.push(row);
      if (row.non2xx > 0) {
        const sample = await post(target);
        console.log(`  ${target.name}: a sample answer now: HTTP ${sample.status} ${sample.text}`);
      }
    }

    console.log(table(rows));
    console.log(
      [
        '',
        'How to read this: the MongoDB in use (embedded by mongodb-memory-server, or a shared server)',
        'sets the pace of database-bound rows, and the load generator shares the event loop with',
        'the services, so the absolute numbers are not meaningful. Compare the ratios to the',
        'baseline within one run: "req/s ÷ base" is the share of the bare Express throughput the',
        'path keeps; "p50 ÷ base" is how many times the bare median latency it takes.',
        'Latencies are of 2xx responses only.',
      ].join('\n'),
    );

    // ---- Downloads ----
    const storage = system.download.storage;
    const agent = new Agent({ keepAlive: true });
    const downloadUrl = `${system.gatewayUrl}${API_BASE}/downloads/${product.id}?dlid=${license.license_key}`;
    const direct = async () => {
      let n = 0;
      const hash = createHash('sha256');
      await pipeline(
        await storage.read(stored.object_key, 0, stored.size),
        sink((k) => (n += k), hash),
      );
      if (hash.digest('hex') !== stored.sha256) throw new Error('direct read: checksum differs');
      return n;
    };
    const viaGateway = () =>
      new Promise<number>((resolve, reject) => {
        httpGet(downloadUrl, { agent, headers: { accept: 'application/json' } }, (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            return reject(new Error(`download: HTTP ${res.statusCode}`));
          }
          let n = 0;
          const hash = createHash('sha256');
          pipeline(
            res,
            sink((k) => (n += k), hash),
          ).then(() => {
            if (hash.digest('hex') !== stored.sha256) reject(new Error('checksum differs'));
            else resolve(n);
          }, reject);
        }).on('error', reject);
      });
    await viaGateway(); // warm-up, and a loud failure if the path is broken
    const rssBefore = process.memoryUsage().rss / MB;
    const downloads = [
      await throughput('object store, direct (minio client)', seconds, direct),
      await throughput('GET /downloads/{id} through the gateway', seconds, viaGateway),
    ];
    agent.destroy();
    console.log(
      [
        '',
        `Downloads: one ${(stored.size / MB).toFixed(0)} MB file after another for ${seconds} s ` +
          `per row, each checked by SHA-256; RSS before: ${rssBefore.toFixed(0)} MB`,
        '',
        throughputTable(downloads),
        '',
        'The gateway row includes the RPC decision (license check, file choice, log entry) and two',
        'HTTP hops (download service, gateway) in the same process. Peak RSS is of the process that',
        'runs every service: it stays near the "before" value whatever the file size, since every',
        'hop streams with backpressure.',
      ].join('\n'),
    );
  } finally {
    await baseline?.close();
    await system?.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('bench failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
