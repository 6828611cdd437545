/**
 * Download throughput: one file after another for the measured time, each checked by SHA-256,
 * read directly from the object store (the minio client the download service uses) and then
 * through the gateway (the decision over RabbitMQ, then the bytes relayed from the download
 * service's port). The reading client is this process, never a service.
 */
import { createHash } from 'node:crypto';
import { Agent, get as httpGet } from 'node:http';
import { Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { PackageStorage } from '../services/download/storage.js';
import {
  cpuSecondsBetween,
  cpuSnapshot,
  currentRss,
  peakRss,
  resetPeakRss,
  type Measured,
} from './cpu.js';
import type { Fixture } from './fixture.js';
import { API_BASE } from './paths.js';
import type { RunningSystem } from './system.js';
import { withTimeout } from '../libs/process/timeout.js';

export interface ThroughputMeasurement {
  name: string;
  files: number;
  seconds: number;
  bytes: number;
  cpuSeconds: Map<string, number | null>;
  /** Peak RSS during the run (VmHWM, reset at its start) of the gateway and download processes. */
  peakRss: { gateway: number | null; download: number | null };
}

export interface DownloadReport {
  rows: ThroughputMeasurement[];
  fileBytes: number;
  /** RSS of the gateway and download processes before the first download. */
  rssBefore: { gateway: number | null; download: number | null };
  /** Whether the peaks could be reset for each run (else they are since the process started). */
  peaksReset: boolean;
}

/** One file must not take longer than this (a stalled transfer is a failure, not a hang). */
const FILE_TIMEOUT_MS = 120_000;

/** Counts and hashes a stream; fails unless the bytes are the stored file's. */
async function drain(source: Readable, sha256: string, what: string): Promise<number> {
  let bytes = 0;
  const hash = createHash('sha256');
  await pipeline(
    source,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        bytes += chunk.length;
        done();
      },
    }),
    { signal: AbortSignal.timeout(FILE_TIMEOUT_MS) },
  );
  if (hash.digest('hex') !== sha256) throw new Error(`${what}: the checksum differs`);
  return bytes;
}

export async function measureDownloads(
  system: RunningSystem,
  fixture: Fixture,
  measured: readonly Measured[],
  ticksPerSecond: number,
  seconds: number,
): Promise<DownloadReport> {
  const { file } = fixture;
  const storage = await withTimeout(
    PackageStorage.connect({ ...system.objectStore, region: 'us-east-1' }),
    30_000,
    'object store: no answer within 30 s',
  );
  const agent = new Agent({ keepAlive: true });
  const url =
    `${system.gatewayUrl}${API_BASE}/downloads/${fixture.productId}` +
    `?dlid=${encodeURIComponent(fixture.licenseKey)}`;

  const direct = async () =>
    drain(
      await withTimeout(
        storage.read(file.objectKey, 0, file.size),
        FILE_TIMEOUT_MS,
        `direct read: no answer within ${FILE_TIMEOUT_MS / 1000} s`,
      ),
      file.sha256,
      'direct read',
    );
  const viaGateway = () =>
    new Promise<number>((resolve, reject) => {
      const req = httpGet(url, { agent, headers: { accept: 'application/json' } }, (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`download through the gateway: HTTP ${res.statusCode}`));
          return;
        }
        drain(res, file.sha256, 'download through the gateway').then(resolve, reject);
      });
      req.setTimeout(FILE_TIMEOUT_MS, () => req.destroy(new Error('download: no answer')));
      req.on('error', reject);
    });

  const gatewayPid = system.services.gateway.pid;
  const downloadPid = system.services.download.pid;
  const rssBefore = { gateway: currentRss(gatewayPid), download: currentRss(downloadPid) };
  let peaksReset = true;

  const run = async (name: string, readOnce: () => Promise<number>) => {
    await readOnce(); // warm-up, and a loud failure if the path is broken
    peaksReset = resetPeakRss(gatewayPid) && resetPeakRss(downloadPid) && peaksReset;
    const before = cpuSnapshot(measured);
    const started = process.hrtime.bigint();
    const until = Date.now() + seconds * 1000;
    let bytes = 0;
    let files = 0;
    do {
      bytes += await readOnce();
      files += 1;
    } while (Date.now() < until);
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    return {
      name,
      files,
      seconds: elapsed,
      bytes,
      cpuSeconds: cpuSecondsBetween(before, cpuSnapshot(measured), ticksPerSecond),
      peakRss: { gateway: peakRss(gatewayPid), download: peakRss(downloadPid) },
    };
  };

  try {
    const rows = [
      await run('object store, direct (minio client)', direct),
      await run('`GET /downloads/{id}` through the gateway', viaGateway),
    ];
    return { rows, fileBytes: file.size, rssBefore, peaksReset };
  } finally {
    agent.destroy();
  }
}
