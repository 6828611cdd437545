/**
 * Small local HTTP servers for the client tests: one that follows the spec for the update check
 * and the download endpoint (4.4, 4.5), one that signs its answers as the server does, and
 * scripted ones that misbehave.
 */
import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  contentDigestField,
  fromBase64,
  licenseFile,
  licenseFileSigningInput,
  NONCE_HEADER,
  publicJwk,
  requestTarget,
  signatureField,
  signingInput,
  type Ed25519PublicJwk,
  type JwkSet,
  type LicenseFilePayload,
} from '../../libs/signatures/index.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

export interface Recorded {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  /** When the request arrived (Date.now()). */
  at: number;
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
    const at = Date.now();
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
        at,
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
    const updates = new RegExp(`^${API_BASE}/updates/(\\d+)$`).exec(path);
    const downloads = new RegExp(`^${API_BASE}/downloads/(\\d+)$`).exec(path);
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
            access === 'account' ? null : `${origin}${API_BASE}/downloads/${options.productId}`,
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
  lease_expires_at: null,
};

/**
 * Signing as the server signs (with libs/signatures): Ed25519 keys named by their thumbprint,
 * answers signed over their status, Content-Digest and request, echoing the client's nonce, and
 * license files. The `Signed` overrides sign something other than what is sent, to misbehave.
 */
export interface SigningKey {
  jwk: Ed25519PublicJwk;
  privateKey: KeyObject;
}

export async function signingKey(): Promise<SigningKey> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const x = publicKey.export({ format: 'jwk' }).x!;
  return { jwk: await publicJwk(fromBase64(x)!), privateKey };
}

export const keySetOf = (...keys: SigningKey[]): JwkSet => ({ keys: keys.map((k) => k.jwk) });

export interface SignOverrides {
  /** Seconds; default now. */
  created?: number;
  /** Seconds; default created + 300. */
  expires?: number;
  /** Sign for another request than the one received. */
  method?: string;
  target?: string;
  /** Sign (and echo) another nonce than the one received; null: sign none. */
  nonce?: string | null;
  /** Sign another request body's digest than the one received; null: sign none. */
  requestDigest?: string | null;
  /** Sign another status or body than the one sent. */
  status?: number;
  body?: string;
}

const nowSeconds = () => Math.floor(Date.now() / 1000);

/**
 * The headers of a signed answer to `req` (its method, raw target, `Content-Digest` and
 * `Licensing-Nonce`, as the real server signs them once it has checked the body's digest).
 */
export function signedHeaders(
  req: Pick<IncomingMessage, 'method' | 'url' | 'headers'>,
  status: number,
  body: string,
  key: SigningKey,
  overrides: SignOverrides = {},
): Record<string, string> {
  const received = req.headers[NONCE_HEADER];
  const nonce =
    overrides.nonce !== undefined
      ? overrides.nonce
      : typeof received === 'string'
        ? received
        : null;
  const created = overrides.created ?? nowSeconds();
  const contentDigest = contentDigestField(
    new Uint8Array(
      createHash('sha256')
        .update(overrides.body ?? body)
        .digest(),
    ),
  );
  const sentDigest = req.headers['content-digest'];
  const { base, signatureInput } = signingInput(
    {
      method: overrides.method ?? req.method ?? 'GET',
      ...requestTarget(overrides.target ?? req.url ?? '/'),
      contentDigest:
        overrides.requestDigest !== undefined
          ? overrides.requestDigest
          : typeof sentDigest === 'string'
            ? sentDigest
            : null,
    },
    { status: overrides.status ?? status, contentDigest, nonce },
    { created, expires: overrides.expires ?? created + 300, keyid: key.jwk.kid },
  );
  const signature = new Uint8Array(sign(null, Buffer.from(base, 'utf8'), key.privateKey));
  return {
    'Content-Digest': contentDigest,
    'Signature-Input': signatureInput,
    Signature: signatureField(signature),
    ...(nonce === null ? {} : { 'Licensing-Nonce': nonce }),
  };
}

/** `sendJson`, signed. */
export function sendSigned(
  req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: unknown,
  key: SigningKey,
  overrides: SignOverrides = {},
  headers: Record<string, string> = {},
) {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...signedHeaders(req, status, text, key, overrides),
    ...headers,
  });
  res.end(text);
}

/** A license file as checkout issues it, signed by `key`; `payload` overrides its fields. */
export function licenseFileOf(
  key: SigningKey,
  payload: Partial<LicenseFilePayload> & { identifier: string; product_id: number },
  signer: SigningKey = key,
): string {
  const issued = payload.issued_at ?? new Date().toISOString();
  const expires = payload.expires_at ?? new Date(Date.parse(issued) + 86_400_000).toISOString();
  const full: LicenseFilePayload = {
    ver: 1,
    license: {
      valid: true,
      status: 'active',
      license_key: 'K',
      product: 'Test Plugin',
      plan: 'Single site',
      activation_type: 'domain',
      activation_limit: 3,
      activations_used: 1,
      expires_at: null,
    },
    issued_at: issued,
    expires_at: expires,
    iat: Math.floor(Date.parse(issued) / 1000),
    exp: Math.floor(Date.parse(expires) / 1000),
    ...payload,
  };
  const input = licenseFileSigningInput(
    { alg: 'EdDSA', typ: 'licensing-file+jwt', kid: key.jwk.kid },
    full,
  );
  return licenseFile(
    input,
    new Uint8Array(sign(null, Buffer.from(input, 'utf8'), signer.privateKey)),
  );
}

/** What the next answer of a `signedStore` is, instead of the spec's answer. */
export type Misbehaviour =
  | 'ok'
  | 'internal-error'
  | 'rate-limited'
  | 'hang'
  | 'refuse'
  | 'html'
  | 'unsigned'
  | 'forged-valid';

export interface SignedStore extends LocalServer {
  key: SigningKey;
  /** The answers to come, one per request; then `mode` for the rest. */
  script: Misbehaviour[];
  mode: Misbehaviour;
  /** The `Retry-After` of a `rate-limited` answer, when set. */
  retryAfter?: string;
  /** The package the update check names (size, SHA-256). */
  file: Buffer;
  /**
   * The plan's lease, in milliseconds (the server's `lease_seconds`, finer for short tests): an
   * activation lapses this long after it was activated or last validated with its identifier.
   * Undefined: no lease (`lease_expires_at` null).
   */
  leaseMs?: number;
  /** Milliseconds every answer waits before it is sent: a slow server. */
  latency?: number;
  /** While set, every answer waits for it first: a server slow until the test lets it answer. */
  held?: Promise<void>;
  /** What the download endpoint serves instead, with its own checksum header: a swapped package. */
  servedFile?: Buffer;
}

export interface SignedStoreOptions {
  productId: number;
  key?: SigningKey;
  /** Licenses by key, with their activated (normalised) identifiers. */
  licenses?: Record<string, { activated?: string[]; status?: string; expires_at?: string | null }>;
  /** The lease of a license file when checkout is asked for none, in seconds. */
  ttl?: number;
  /** The package of the update check and the download endpoint (default 10 bytes). */
  file?: Buffer;
  /** The plan's lease in milliseconds (`SignedStore.leaseMs`). */
  leaseMs?: number;
}

/**
 * A store that answers activate, validate, deactivate, checkout, the update check and the key set
 * as the spec and the signing server do, every answer signed; or misbehaves as scripted.
 */
export async function signedStore(options: SignedStoreOptions): Promise<SignedStore> {
  const key = options.key ?? (await signingKey());
  const licenses = options.licenses ?? {};
  const state = (licenseKey: string) => {
    const license = licenses[licenseKey];
    return {
      status: license?.status ?? 'active',
      license_key: licenseKey,
      product: 'Test Plugin',
      plan: 'Single site',
      activation_type: 'domain',
      activation_limit: 3,
      activations_used: license?.activated?.length ?? 0,
      expires_at: license?.expires_at ?? null,
    };
  };
  // When each leased activation lapses, by license key and identifier.
  const leases = new Map<string, number>();
  const leaseOf = (licenseKey: string, identifier: string) => `${licenseKey}\n${identifier}`;
  /** Starts or renews the lease of an activation; its end as the answer's `lease_expires_at`. */
  const renew = (licenseKey: string, identifier: string): string | null => {
    if (store.leaseMs === undefined) return null;
    const until = Date.now() + store.leaseMs;
    leases.set(leaseOf(licenseKey, identifier), until);
    return new Date(until).toISOString();
  };
  /** A lapsed activation is gone, as if deactivated. */
  const lapse = (licenseKey: string) => {
    const activated = licenses[licenseKey]?.activated ?? [];
    for (const identifier of [...activated]) {
      const until = leases.get(leaseOf(licenseKey, identifier));
      if (until !== undefined && until <= Date.now()) {
        activated.splice(activated.indexOf(identifier), 1);
        leases.delete(leaseOf(licenseKey, identifier));
      }
    }
  };
  // Read at each request: the test changes `script`, `mode`, `retryAfter`, `servedFile`,
  // `leaseMs`, `latency` and `held`.
  const control = {
    key,
    script: [] as Misbehaviour[],
    mode: 'ok' as Misbehaviour,
    file: options.file ?? packageBytes(10),
    leaseMs: options.leaseMs,
  };
  const store = control as SignedStore;
  const server = await serve((req, res, recorded) => {
    const send = () => {
      if (store.latency) setTimeout(() => answer(req, res, recorded), store.latency);
      else answer(req, res, recorded);
    };
    if (store.held) void store.held.then(send);
    else send();
  });
  function answer(req: IncomingMessage, res: ServerResponse, recorded: Recorded) {
    const signed = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      sendSigned(req, res, status, body, key, {}, headers);
    const refuse = (status: number, code: string) =>
      signed(status, { error: { code, message: `Refused: ${code}.` } });
    const behaviour = store.script.shift() ?? store.mode;
    switch (behaviour) {
      case 'hang':
        return;
      case 'refuse':
        req.socket.destroy();
        return;
      case 'html':
        res.writeHead(502, { 'Content-Type': 'text/html' });
        res.end('<html><h1>502 Bad Gateway</h1></html>');
        return;
      case 'internal-error':
        return refuse(500, 'INTERNAL_ERROR');
      case 'rate-limited':
        return signed(
          429,
          { error: { code: 'RATE_LIMITED', message: 'Too many requests.' } },
          store.retryAfter === undefined ? {} : { 'Retry-After': store.retryAfter },
        );
      default:
    }
    const fields = new URLSearchParams(recorded.body);
    const licenseKey = fields.get('license_key') ?? recorded.query.get('license_key') ?? '';
    const identifier = (fields.get('identifier') ?? '').replace(/^https?:\/\/(www\.)?/, '');
    const license = licenses[licenseKey];
    lapse(licenseKey);
    const path = recorded.path.slice(API_BASE.length);
    let status = 200;
    let body: unknown;
    if (path === '/keys') {
      return sendJson(res, 200, keySetOf(key));
    } else if (path.startsWith('/downloads/')) {
      // Not a signed answer: the signed update check names the package's size and SHA-256.
      const served = store.servedFile ?? store.file;
      res.writeHead(200, {
        'Content-Type': 'application/zip',
        'Content-Length': served.length,
        'Content-Disposition': 'attachment; filename="test-plugin-2.1.0.zip"',
        'X-Checksum-SHA256': sha256Hex(served),
      });
      res.end(served);
      return;
    } else if (path === '/licenses/validate') {
      const activated =
        fields.get('identifier') !== null && (license?.activated ?? []).includes(identifier);
      body = {
        data: {
          ...state(licenseKey),
          valid: license !== undefined && (license.status ?? 'active') === 'active',
          identifier_activated: fields.get('identifier') === null || activated,
          // Validate with an activated identifier renews its lease.
          lease_expires_at: activated ? renew(licenseKey, identifier) : null,
          ...(license === undefined && UNKNOWN_KEY),
          ...(license === undefined && { license_key: licenseKey }),
        },
      };
    } else if (path === '/licenses/activate' || path === '/licenses/deactivate') {
      if (license === undefined) return refuse(403, 'LICENSE_INVALID');
      const activated = (license.activated ??= []);
      if (path === '/licenses/activate' && !activated.includes(identifier)) {
        activated.push(identifier);
      }
      if (path === '/licenses/deactivate') {
        if (!activated.includes(identifier)) return refuse(404, 'ACTIVATION_NOT_FOUND');
        activated.splice(activated.indexOf(identifier), 1);
        leases.delete(leaseOf(licenseKey, identifier));
      }
      const lease = path === '/licenses/activate' ? renew(licenseKey, identifier) : null;
      body = { data: { ...state(licenseKey), identifier, lease_expires_at: lease } };
    } else if (path === '/licenses/checkout') {
      if (license === undefined) return refuse(403, 'LICENSE_INVALID');
      if (Number(fields.get('product_id')) !== options.productId) {
        return refuse(403, 'PRODUCT_MISMATCH');
      }
      if (!(license.activated ?? []).includes(identifier)) {
        return refuse(404, 'ACTIVATION_NOT_FOUND');
      }
      const ttl = Number(fields.get('ttl') ?? options.ttl ?? 30 * 86_400);
      const issued = new Date(nowSeconds() * 1000);
      const expires = new Date(issued.getTime() + ttl * 1000);
      const file = licenseFileOf(key, {
        product_id: options.productId,
        identifier,
        license: { ...state(licenseKey), valid: true },
        issued_at: issued.toISOString(),
        expires_at: expires.toISOString(),
      });
      body = {
        data: {
          license_file: file,
          issued_at: issued.toISOString(),
          expires_at: expires.toISOString(),
        },
      };
    } else if (path.startsWith('/updates/')) {
      body = {
        data: {
          update_available: true,
          name: 'Test Plugin',
          version: '2.1.0',
          download_url: `${server.url}${API_BASE}/downloads/${options.productId}`,
          download_requires: 'license_key',
          release_notes: null,
          date: '2026-01-15',
          file_size: store.file.length,
          requires_license: true,
          sha256: sha256Hex(store.file),
        },
      };
    } else {
      status = 404;
      body = { error: { code: 'NOT_FOUND', message: 'No such route.' } };
    }
    if (behaviour === 'unsigned') return sendJson(res, status, body);
    if (behaviour === 'forged-valid' && path === '/licenses/validate') {
      // A valid answer, signed by a key nobody pinned.
      return sendSigned(
        req,
        res,
        200,
        {
          data: {
            ...state(licenseKey),
            valid: true,
            identifier_activated: true,
            lease_expires_at: null,
          },
        },
        { ...key, jwk: { ...key.jwk, kid: 'not-a-pinned-key' } },
      );
    }
    signed(status, body);
  }
  // The test's handle is `control` itself, with the server's url, requests and close.
  return Object.assign(control, server);
}
