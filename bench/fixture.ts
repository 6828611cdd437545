/**
 * The data the benchmark needs, made through the management API as an admin would: a product,
 * a plan with no activation limit, licenses, a published version with its package file. One
 * license holds 20,000 activations: it is put in place in the license service's database as one
 * document, since 20,000 activate calls would take the test database far too long.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { connectDatabase } from '../libs/database/index.js';
import type { LicenseDocument } from '../services/license/models.js';
import { storeManyActivations } from './support/many-activations.js';
import type { RunningSystem } from './running-system.js';

const CALL_TIMEOUT_MS = 30_000;
export const MB = 1024 * 1024;
/** The activations of the license of the `validate-many` path. */
export const MANY_ACTIVATIONS = 20_000;

export interface Fixture {
  productId: number;
  /** An active license whose `identifier` is activated. */
  licenseKey: string;
  identifier: string;
  /** A license of the product that expired (its date is past). */
  expiredKey: string;
  /** Issues another active license of the product, with no activation limit. */
  newLicense(): Promise<string>;
  /**
   * An active license of the product holding MANY_ACTIVATIONS activations, and one of them near
   * the end of its list; made on the first call only, so that the other paths run without it.
   */
  manyActivations(): Promise<{ licenseKey: string; identifier: string }>;
  /** The package file of the product's version. */
  file: { objectKey: string; size: number; sha256: string };
  uploadSeconds: number;
}

async function call<T>(
  system: RunningSystem,
  method: 'POST' | 'GET',
  route: string,
  body?: object,
): Promise<T> {
  const res = await fetch(`${system.managementUrl}/admin/v1${route}`, {
    method,
    headers: {
      authorization: `Bearer ${system.adminToken}`,
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${method} ${route}: HTTP ${res.status} ${text}`);
  return (JSON.parse(text) as { data: T }).data;
}

/**
 * Uploads a package of `size` bytes, generated chunk by chunk (never whole in memory), through
 * the management API as a multipart form.
 */
async function uploadPackage(
  system: RunningSystem,
  versionId: number,
  size: number,
): Promise<{ size: number; sha256: string; object_key: string }> {
  const seed = randomBytes(64 * 1024);
  const boundary = `bench${randomBytes(8).toString('hex')}`;
  async function* body() {
    // An updater signature, so that the Tauri and Sparkle feeds list the file (its bytes are
    // not checked by the server).
    yield Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="signature"\r\n\r\n` +
        `${randomBytes(64).toString('base64')}\r\n`,
    );
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
  // A slow machine moves a few MB/s through three processes; more than this is a hang.
  const timeoutMs = 120_000 + (size / MB) * 2000;
  const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(
      `${system.managementUrl}/admin/v1/versions/${versionId}/files`,
      {
        method: 'POST',
        headers: {
          authorization: `Bearer ${system.adminToken}`,
          'content-type': `multipart/form-data; boundary=${boundary}`,
        },
      },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    const timer = setTimeout(
      () => req.destroy(new Error(`upload: no answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    req.on('close', () => clearTimeout(timer));
    req.on('error', reject);
    pipeline(Readable.from(body()), req).catch(reject);
  });
  if (answer.status !== 201) throw new Error(`upload: HTTP ${answer.status} ${answer.text}`);
  return (JSON.parse(answer.text) as { data: { size: number; sha256: string; object_key: string } })
    .data;
}

/** A form POST to the public API, outside any measurement; fails unless it answers `expected`. */
async function postForm(
  url: string,
  fields: Record<string, string | number>,
  expected = 200,
): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(
      Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString(),
    signal: AbortSignal.timeout(CALL_TIMEOUT_MS),
  });
  const text = await res.text();
  if (res.status !== expected) throw new Error(`POST ${url}: HTTP ${res.status} ${text}`);
}

export async function createFixture(
  system: RunningSystem,
  packageBytes: number,
  activateUrl: string,
): Promise<Fixture> {
  const product = await call<{ id: number }>(system, 'POST', '/products', {
    title: `Bench ${system.id}`,
    // The Joomla feed's settings, so that its row answers a stream (bench/feed-paths.ts).
    joomla: { element: 'pkg_bench', type: 'package' },
  });
  const plan = await call<{ id: number }>(system, 'POST', '/plans', {
    name: `Bench unlimited ${system.id}`,
    activation_type: 'device',
    activation_limit: 0,
  });
  const issue = async (fields: object = {}) =>
    (
      await call<{ license_key: string }>(system, 'POST', '/licenses', {
        product_id: product.id,
        plan_id: plan.id,
        ...fields,
      })
    ).license_key;
  const licenseKey = await issue();
  const expiredKey = await issue({ expires_at: '2020-01-01T00:00:00Z' });
  const identifier = 'bench-device';
  await postForm(activateUrl, { license_key: licenseKey, identifier, product_id: product.id });

  const version = await call<{ id: number }>(system, 'POST', `/products/${product.id}/versions`, {
    version: '1.0.0',
  });
  const started = process.hrtime.bigint();
  const stored = await uploadPackage(system, version.id, packageBytes);
  const uploadSeconds = Number(process.hrtime.bigint() - started) / 1e9;
  let many: Promise<{ licenseKey: string; identifier: string }> | undefined;
  return {
    productId: product.id,
    licenseKey,
    identifier,
    expiredKey,
    newLicense: () => issue(),
    manyActivations: () =>
      (many ??= licenseWithManyActivations(system, { productId: product.id, planId: plan.id })),
    file: { objectKey: stored.object_key, size: stored.size, sha256: stored.sha256 },
    uploadSeconds,
  };
}

/**
 * A license of the bench plan (device, no limit) with MANY_ACTIVATIONS activations, stored and
 * counted as bench/support/many-activations.ts does, in the license service's own database.
 */
async function licenseWithManyActivations(
  system: RunningSystem,
  { productId, planId }: { productId: number; planId: number },
): Promise<{ licenseKey: string; identifier: string }> {
  const db = await connectDatabase(system.mongodbUrl, system.databasePrefix, 'license');
  try {
    const device = (n: number) => `bench-device-${String(n).padStart(5, '0')}`;
    const { licenseKey, counted } = await storeManyActivations(
      db.db!.collection<LicenseDocument>('licenses'),
      {
        productId,
        planId,
        activationType: 'device',
        count: MANY_ACTIVATIONS,
        identifier: device,
        firstActivatedAt: new Date(Date.now() - 86_400_000),
      },
    );
    if (counted !== 1) throw new Error(`counted ${counted} licenses, expected the one stored`);
    return { licenseKey, identifier: device(MANY_ACTIVATIONS - 1) };
  } finally {
    await db.close();
  }
}
