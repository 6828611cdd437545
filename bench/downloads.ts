/**
 * Download throughput: one file after another for the measured time, each checked by SHA-256,
 * read directly from the object store (the minio client the download service uses), then
 * through the gateway (the decision over RabbitMQ, then the bytes relayed from the store), then
 * through a gateway in redirect mode (the decision, then a 302 followed to the store). The
 * reading client is this process, never a service.
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
import { API_BASE } from '../libs/contracts/api-base.js';
import type { RunningSystem } from './running-system.js';
import { withTimeout } from '../libs/process/timeout.js';

export interface ThroughputMeasurement {
  name: string;
  files: number;
  seconds: number;
  bytes: number;
  cpuSeconds: Map<string, number | null>;
  /** Peak RSS during the run (VmHWM, reset at its start) of the gateway and download processes. */
  peakRss: { gateway: number | null; download: number | null };
  /** Median time from sending the request to the first byte of the file, in milliseconds. */
  firstByteMs: number;
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

/** A read of one file: its bytes, and how long its first byte took. */
interface Read {
  bytes: number;
  firstByteMs: number;
}

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

/** Milliseconds from `started` until `source` has its first byte (left unread for the drain). */
function firstByteAfter(source: Readable, started: bigint): Promise<number> {
  return new Promise((resolve, reject) => {
    const onReadable = () => {
      cleanup();
      resolve(Number(process.hrtime.bigint() - started) / 1e6);
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      source.off('readable', onReadable);
      source.off('error', onError);
    };
    source.once('readable', onReadable);
    source.once('error', onError);
  });
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

  const direct = async (): Promise<Read> => {
    const started = process.hrtime.bigint();
    const source = await withTimeout(
      storage.read(file.objectKey, 0, file.size),
      FILE_TIMEOUT_MS,
      `direct read: no answer within ${FILE_TIMEOUT_MS / 1000} s`,
    );
    const firstByteMs = await firstByteAfter(source, started);
    return { bytes: await drain(source, file.sha256, 'direct read'), firstByteMs };
  };
  /** GET `from`, following one redirect (redirect mode) to the object store. */
  const viaGateway = (from: string) => (): Promise<Read> => {
    const started = process.hrtime.bigint();
    return new Promise<Read>((resolve, reject) => {
      const get = (target: string, redirects: number) => {
        const req = httpGet(target, { agent, headers: { accept: 'application/json' } }, (res) => {
          const location = res.headers.location;
          if (res.statusCode === 302 && location !== undefined && redirects > 0) {
            res.resume();
            get(location, redirects - 1);
            return;
          }
          if (res.statusCode !== 200) {
            res.resume();
            reject(new Error(`download through the gateway: HTTP ${res.statusCode}`));
            return;
          }
          firstByteAfter(res, started).then(
            (firstByteMs) =>
              drain(res, file.sha256, 'download through the gateway').then(
                (bytes) => resolve({ bytes, firstByteMs }),
                reject,
              ),
            reject,
          );
        });
        req.setTimeout(FILE_TIMEOUT_MS, () => req.destroy(new Error('download: no answer')));
        req.on('error', reject);
      };
      get(from, 1);
    });
  };

  const gatewayPid = system.services.gateway.pid;
  const downloadPid = system.services.download.pid;
  const rssBefore = { gateway: currentRss(gatewayPid), download: currentRss(downloadPid) };
  let peaksReset = true;

  /** `gateway`: the gateway whose CPU and memory the row reports. */
  const run = async (name: string, readOnce: () => Promise<Read>, gateway = gatewayPid) => {
    // The row's gateway under the name the report reads.
    const processes = measured.map((p) => (p.name === 'gateway' ? { ...p, pid: gateway } : p));
    await readOnce(); // warm-up, and a loud failure if the path is broken
    peaksReset = resetPeakRss(gateway) && resetPeakRss(downloadPid) && peaksReset;
    const before = cpuSnapshot(processes);
    const started = process.hrtime.bigint();
    const until = Date.now() + seconds * 1000;
    let bytes = 0;
    let files = 0;
    const firstBytes: number[] = [];
    do {
      const read = await readOnce();
      bytes += read.bytes;
      firstBytes.push(read.firstByteMs);
      files += 1;
    } while (Date.now() < until);
    const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
    firstBytes.sort((a, b) => a - b);
    return {
      name,
      files,
      seconds: elapsed,
      bytes,
      cpuSeconds: cpuSecondsBetween(before, cpuSnapshot(processes), ticksPerSecond),
      peakRss: { gateway: peakRss(gateway), download: peakRss(downloadPid) },
      firstByteMs: firstBytes[Math.floor(firstBytes.length / 2)] ?? Number.NaN,
    };
  };

  try {
    const rows = [
      await run('object store, direct (minio client)', direct),
      await run('`GET /downloads/{id}` through the gateway (relay)', viaGateway(url)),
      await run(
        '`GET /downloads/{id}`, `DOWNLOAD_DELIVERY=redirect` (302 followed)',
        viaGateway(url.replace(system.gatewayUrl, system.redirectGatewayUrl)),
        system.redirectGateway.pid,
      ),
    ];
    return { rows, fileBytes: file.size, rssBefore, peaksReset };
  } finally {
    agent.destroy();
  }
}
