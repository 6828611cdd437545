/**
 * Small local HTTP servers for the client tests: one that follows the spec for the update check
 * and the download endpoint (4.4, 4.5), and scripted ones that misbehave.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const API = '/api/index.php/v1/licensing';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface LocalServer {
  /** The store root URL. */
  url: string;
  requests: Recorded[];
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse, recorded: Recorded) => void;

/** A server answering every request with `handler`, recording what it received. */
export async function serve(handler: Handler): Promise<LocalServer> {
  const requests: Recorded[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const recorded: Recorded = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(recorded);
      handler(req, res, recorded);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A URL on which nothing listens: connecting to it is refused. */
export async function refusedUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

export const sha256Hex = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');
export const sha256Base64 = (data: Uint8Array) =>
  createHash('sha256').update(data).digest('base64');

/** Deterministic pseudo-random bytes, so a corrupted byte would change the checksum. */
export function packageBytes(size: number, seed = 1): Buffer {
  const bytes = Buffer.alloc(size);
  let x = seed;
  for (let i = 0; i < size; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    bytes[i] = x >>> 24;
  }
  return bytes;
}

export interface SpecServerOptions {
  productId: number;
  /** The package served by the download endpoint. */
  file: Buffer;
  filename?: string;
  /** Download API Access (spec 2.7). */
  access?: 'license_key' | 'activated_identifier' | 'account' | 'public';
  /** Known keys and their activated identifiers. */
  keys?: Record<string, { activated?: string[]; expired?: boolean }>;
  /** Served in 16 KiB chunks, so progress is reported more than once. */
  chunkSize?: number;
}

/** The update check and download endpoint as spec 4.4 and 4.5 describe them. */
export function specServer(options: SpecServerOptions): Promise<LocalServer> {
  const access = options.access ?? 'license_key';
  const keys = options.keys ?? {};
  let origin = '';
  const refuse = (res: ServerResponse, code: string, status = 403) =>
    sendJson(res, status, { error: { code, message: `Refused: ${code}.` } });
  const started = serve((_req, res, { path, query }) => {
    const updates = new RegExp(`^${API}/updates/(\\d+)$`).exec(path);
    const downloads = new RegExp(`^${API}/downloads/(\\d+)$`).exec(path);
    if (updates) {
      if (Number(updates[1]) !== options.productId) {
        sendJson(res, 200, {
          data: { update_available: false, requires_license: false, download_requires: null },
        });
        return;
      }
      const key = query.get('license_key') ?? query.get('dlid');
      const license = key ? keys[key] : undefined;
      sendJson(res, 200, {
        data: {
          update_available: true,
          name: 'Test Plugin',
          version: '2.1.0',
          download_url:
            access === 'account' ? null : `${origin}${API}/downloads/${options.productId}`,
          download_requires: access === 'public' ? null : access,
          release_notes: 'Fixes.',
          date: '2026-01-15',
          file_size: options.file.length,
          requires_license: true,
          ...(license && {
            license_status: license.expired ? 'expired' : 'active',
            license_expires_at: license.expired ? '2020-01-01T00:00:00Z' : null,
            auto_renew: false,
            next_payment_at: null,
          }),
        },
      });
      return;
    }
    if (downloads && Number(downloads[1]) === options.productId) {
      const key = query.get('dlid') ?? '';
      const identifier = query.get('identifier');
      const license = keys[key];
      if (access === 'account') return refuse(res, 'ACCOUNT_ONLY');
      if (access !== 'public') {
        if (!license) return refuse(res, 'LICENSE_INVALID');
        if (license.expired) return refuse(res, 'LICENSE_EXPIRED');
        if (access === 'activated_identifier' && !identifier) {
          return refuse(res, 'ACTIVATION_REQUIRED');
        }
        if (identifier && !(license.activated ?? []).includes(identifier)) {
          return refuse(res, 'ACTIVATION_NOT_FOUND');
        }
      }
      res.writeHead(200, {
        'Content-Type': 'application/zip',
        'Content-Length': options.file.length,
        'Content-Disposition': `attachment; filename="${options.filename ?? 'test-plugin-2.1.0.zip'}"`,
        'X-Checksum-SHA256': sha256Hex(options.file),
      });
      const size = options.chunkSize ?? 16 * 1024;
      let offset = 0;
      const next = () => {
        if (offset >= options.file.length) return res.end();
        const chunk = options.file.subarray(offset, offset + size);
        offset += size;
        if (res.write(chunk)) setImmediate(next);
        else res.once('drain', next);
      };
      next();
      return;
    }
    sendJson(res, 404, { error: { code: 'NOT_FOUND', message: 'No such route.' } });
  });
  return started.then((server) => {
    origin = server.url;
    return server;
  });
}

/** Spec 4.2 rule 1: what validate answers for a key the store does not know. */
export const UNKNOWN_KEY = {
  valid: false,
  status: 'invalid',
  license_key: 'unknown',
  product: null,
  plan: null,
  activation_type: null,
  activation_limit: 0,
  activations_used: 0,
  expires_at: null,
  identifier_activated: false,
};
