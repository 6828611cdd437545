import { createHash, randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { ADMIN_TOKEN, API_BASE, type TestSystem } from './system.js';

export { eventually } from './eventually.js';

/** Helpers for tests of versions, package files and downloads, through the real HTTP APIs. */

export const AUTH = { Authorization: `Bearer ${ADMIN_TOKEN}` };

export const sha256 = (bytes: Buffer | Uint8Array) =>
  createHash('sha256').update(bytes).digest('hex');

export const sha512 = (bytes: Buffer | Uint8Array) =>
  createHash('sha512').update(bytes).digest('hex');

/** Package bytes that differ from every other call's. */
export const packageBytes = (size: number) => randomBytes(size);

/** An answer a helper did not expect, with what the system logged as errors meanwhile. */
function unexpected(system: TestSystem, what: string, res: { status: number; body: unknown }) {
  const logged = system.loggedErrors();
  return new Error(
    `${what}: ${res.status} ${JSON.stringify(res.body)}` +
      (logged.length > 0 ? `\nthe system's latest error lines:\n${logged.join('\n')}` : ''),
  );
}

/** A version through the management API (published unless told otherwise). */
export async function createVersion(
  system: TestSystem,
  productId: number,
  version: string,
  fields: Record<string, unknown> = {},
) {
  const res = await system
    .admin()
    .post(`/admin/v1/products/${productId}/versions`)
    .set(AUTH)
    .send({ version, ...fields });
  if (res.status !== 201) throw unexpected(system, 'version', res);
  return res.body.data as { id: number; version: string };
}

/** A multipart upload through the management API: `fields` go before the file part. */
export function upload(
  system: TestSystem,
  versionId: number,
  bytes: Buffer,
  filename = 'plugin.zip',
  fields: Record<string, string> = {},
) {
  let req = system.admin().post(`/admin/v1/versions/${versionId}/files`).set(AUTH);
  for (const [name, value] of Object.entries(fields)) req = req.field(name, value);
  return req.attach('file', bytes, filename);
}

/** Uploads and checks the answer; returns the PackageFile. */
export async function uploadFile(
  system: TestSystem,
  versionId: number,
  bytes: Buffer,
  filename = 'plugin.zip',
  fields: Record<string, string> = {},
) {
  const res = await upload(system, versionId, bytes, filename, fields);
  if (res.status !== 201) throw unexpected(system, 'upload', res);
  return res.body.data as {
    id: number;
    filename: string;
    size: number;
    sha256: string;
    sha512: string | null;
  };
}

export interface Downloaded {
  status: number;
  headers: Headers;
  body: Buffer;
  sha256: string;
  /** The error envelope of a refusal. */
  error: { code: string; message: string } | undefined;
}

/** `GET {api_base}/downloads/{product_id}` as an updater sends it (Accept: application/json). */
export async function download(
  system: TestSystem,
  productId: number | string,
  query: Record<string, string> | string = {},
  headers: Record<string, string> = {},
): Promise<Downloaded> {
  const search = typeof query === 'string' ? query : new URLSearchParams(query).toString();
  const url = `${system.running.gatewayUrl}${API_BASE}/downloads/${productId}${search ? `?${search}` : ''}`;
  const res = await fetch(url, { headers: { accept: 'application/json', ...headers } });
  const body = Buffer.from(await res.arrayBuffer());
  const json = res.headers.get('content-type')?.startsWith('application/json')
    ? (JSON.parse(body.toString('utf8')) as { error?: { code: string; message: string } })
    : undefined;
  return {
    status: res.status,
    headers: res.headers,
    body,
    sha256: sha256(body),
    error: json?.error,
  };
}

/** The download log through the management API. */
export async function downloadLog(system: TestSystem, query: Record<string, string | number>) {
  const search = new URLSearchParams(
    Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]),
  );
  const res = await system.admin().get(`/admin/v1/download-log?${search}`).set(AUTH);
  if (res.status !== 200) throw unexpected(system, 'log', res);
  return res.body.data as {
    entries: Array<Record<string, unknown>>;
    total: number;
    page: number;
    per_page: number;
  };
}

/**
 * Every file (not folder) under `directory`, as paths relative to it. The storage may be removing
 * files while this reads (that is what tests wait for): a folder that vanished during the walk
 * makes it read again.
 */
export async function filesUnder(directory: string): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      const entries = await readdir(directory, { recursive: true, withFileTypes: true });
      return entries
        .filter((entry) => entry.isFile())
        .map((entry) => path.relative(directory, path.join(entry.parentPath, entry.name)))
        .sort();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 20) throw error;
    }
  }
}
