/**
 * The paths the benchmark puts under load, each with the requests one connection sends over and
 * over, and the status every answer should have. `requests` is called for the warm-up and again
 * for the measured run, so a path that adds data starts the measured run on a fresh license.
 */
import { createHash } from 'node:crypto';
import { MANY_ACTIVATIONS, type Fixture } from './fixture.js';
import { EACH_CYCLE_ID, EACH_REQUEST_ID, type LoadRequest } from './load-protocol.js';
import { API_BASE } from '../libs/contracts/api-base.js';
import { FEED_PATH_KEYS, feedPaths } from './feed-paths.js';

/**
 * Its connections: the database takes longer over that license than over others, and on a slow
 * one ten requests waiting for it in turn wait past the RPC timeout and are answered 500.
 */
const MANY_ACTIVATIONS_CONNECTIONS = 2;

export type PathTarget = 'bare' | 'gateway' | 'floor';

export interface BenchPath {
  /** Its name in BENCH_ONLY. */
  key: PathKey;
  /** Its name in the table. */
  name: string;
  /** The bare Express app, the gateway, or the RPC floor (bench/children/rpc-floor.ts). */
  target: PathTarget;
  expectedStatus: number;
  /** Fewer connections than BENCH_CONNECTIONS for this path, when set. */
  maxConnections?: number;
  requests(): Promise<LoadRequest[]>;
}

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

/** An urlencoded body in which the id placeholders survive (autocannon replaces them as sent). */
export function formBody(fields: Record<string, string | number>): string {
  let body = new URLSearchParams(
    Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString();
  for (const placeholder of [EACH_REQUEST_ID, EACH_CYCLE_ID]) {
    body = body.replaceAll(encodeURIComponent(placeholder), placeholder);
  }
  return body;
}

const post = (path: string, fields: Record<string, string | number>): LoadRequest => ({
  method: 'POST',
  path,
  headers: FORM,
  body: formBody(fields),
});

/** `request` with the headers of a client that verifies signed answers (docs/api-decisions.md). */
function verifiable(request: LoadRequest): LoadRequest {
  const digest = createHash('sha256')
    .update(request.body ?? '')
    .digest('base64');
  return {
    ...request,
    headers: {
      ...request.headers,
      'content-digest': `sha-256=:${digest}:`,
      'licensing-nonce': 'bench-nonce-of-32-base64url-chars',
    },
  };
}

/** Every path, the bare Express baseline first (the denominator of every ratio). */
export function benchPaths(fixture: Fixture, gatewayUrl: string): BenchPath[] {
  const licenses = `${API_BASE}/licenses`;
  const fields = {
    license_key: fixture.licenseKey,
    product_id: fixture.productId,
    identifier: fixture.identifier,
  };
  const fixed =
    (...requests: LoadRequest[]) =>
    async () =>
      requests;
  return [
    {
      key: 'bare',
      name: 'bare Express form endpoint (baseline)',
      target: 'bare',
      expectedStatus: 200,
      requests: fixed(post('/form', fields)),
    },
    // The floor under every gateway path, the same form each time (see FLOOR_NOTE).
    {
      key: 'floor',
      name: 'floor: the form and one RPC',
      target: 'floor',
      expectedStatus: 200,
      requests: fixed(post('/rpc', fields)),
    },
    {
      key: 'floor-signed',
      name: 'floor: the form and one RPC, signed',
      target: 'floor',
      expectedStatus: 200,
      requests: fixed(post('/rpc/signed', fields)),
    },
    {
      key: 'floor-limited',
      name: 'floor: the form and one RPC, signed, per-IP limit in Redis',
      target: 'floor',
      expectedStatus: 200,
      requests: fixed(post('/rpc/limited', fields)),
    },
    {
      key: 'validate',
      name: 'validate (activated identifier)',
      target: 'gateway',
      expectedStatus: 200,
      requests: fixed(post(`${licenses}/validate`, fields)),
    },
    {
      // As the reference client sends it when it verifies answers: its nonce and the body's
      // Content-Digest, which the gateway checks against the body and its signature covers.
      key: 'validate-verified',
      name: 'validate, as a verifying client sends it (nonce, Content-Digest)',
      target: 'gateway',
      expectedStatus: 200,
      requests: fixed(verifiable(post(`${licenses}/validate`, fields))),
    },
    {
      key: 'activate-same',
      name: 'activate (identifier already active)',
      target: 'gateway',
      expectedStatus: 200,
      requests: fixed(post(`${licenses}/activate`, fields)),
    },
    {
      // A new activation per request, on a fresh license with no limit for each run.
      key: 'activate-new',
      name: 'activate (new identifier each request)',
      target: 'gateway',
      expectedStatus: 200,
      requests: async () => [
        post(`${licenses}/activate`, {
          ...fields,
          license_key: await fixture.newLicense(),
          identifier: `bench-${EACH_REQUEST_ID}`,
        }),
      ],
    },
    {
      // Each connection activates a new identifier, then deactivates that one, and so on: every
      // request changes the license, and the number of activations stays small.
      key: 'activate-deactivate',
      name: 'activate + deactivate (alternating)',
      target: 'gateway',
      expectedStatus: 200,
      requests: async () => {
        const pair = {
          ...fields,
          license_key: await fixture.newLicense(),
          identifier: `pair-${EACH_CYCLE_ID}`,
        };
        return [post(`${licenses}/activate`, pair), post(`${licenses}/deactivate`, pair)];
      },
    },
    {
      key: 'update-key',
      name: 'update check (with license key)',
      target: 'gateway',
      expectedStatus: 200,
      requests: fixed({
        method: 'GET',
        path: `${API_BASE}/updates/${fixture.productId}?dlid=${fixture.licenseKey}`,
      }),
    },
    {
      key: 'update-nokey',
      name: 'update check (no key)',
      target: 'gateway',
      expectedStatus: 200,
      requests: fixed({ method: 'GET', path: `${API_BASE}/updates/${fixture.productId}` }),
    },
    ...feedPaths(fixture, gatewayUrl),
    {
      // The decision only: no storage (see DOWNLOAD_DECISION_NOTE).
      key: 'download-decision',
      name: 'download decision (expired license → 403)',
      target: 'gateway',
      expectedStatus: 403,
      requests: fixed({
        method: 'GET',
        path: `${API_BASE}/downloads/${fixture.productId}?dlid=${fixture.expiredKey}`,
        headers: { accept: 'application/json' },
      }),
    },
    {
      // Validate as above, on a license holding 20,000 activations; the report compares its CPU
      // per request with validate's. Last, so that the other paths run before its license is in
      // the database.
      key: 'validate-many',
      name: `validate (a license with ${MANY_ACTIVATIONS.toLocaleString('en')} activations)`,
      target: 'gateway',
      expectedStatus: 200,
      maxConnections: MANY_ACTIVATIONS_CONNECTIONS,
      requests: async () => {
        const many = await fixture.manyActivations();
        return [
          post(`${licenses}/validate`, {
            license_key: many.licenseKey,
            product_id: fixture.productId,
            identifier: many.identifier,
          }),
        ];
      },
    },
  ];
}

export type PathKey = (typeof PATH_KEYS)[number];
export const PATH_KEYS = [
  'bare',
  'floor',
  'floor-signed',
  'floor-limited',
  'validate',
  'validate-verified',
  'activate-same',
  'activate-new',
  'activate-deactivate',
  'update-key',
  'update-nokey',
  ...FEED_PATH_KEYS,
  'download-decision',
  'validate-many',
] as const;

export const FLOOR_NOTE =
  'The floor rows (bench/children/rpc-floor.ts) are what any answer of this architecture costs ' +
  "before its own work: the bare app's form, then one RPC over RabbitMQ through the services' " +
  'transport to a service that answers at once (both ends in one process, a lower bound of the ' +
  'hop between two); then the same answer signed as the gateway signs; then also counted ' +
  'against the per-IP limit in Redis. Validate does all of that, and its own work besides: the ' +
  "form's checks, the license service's database command, its daily count.";

export const DOWNLOAD_DECISION_NOTE =
  'The download decision is `GET /downloads/{id}` with the key of an expired license, answered ' +
  '`403 LICENSE_EXPIRED`: the rate limit and the query, `download.authorize` (the product as ' +
  'the download service keeps it, the coverage from license, the access rules, the refusal ' +
  'written to the download log with the others of its batch, after the answer), and nothing ' +
  'else. An allowed download, even a HEAD, adds a storage lookup and a presigned URL; a GET ' +
  'then moves the file from the store through the gateway (or, in redirect mode, straight).';

export const ACTIVATION_NOTE =
  'Activate (new identifier each request) adds an activation to one license per request, on a ' +
  'fresh license for the measured run; activate + deactivate has each connection activate a new ' +
  'identifier and then deactivate it, so every request changes the license.';

export const MANY_ACTIVATIONS_NOTE =
  `Validate (a license with ${MANY_ACTIVATIONS.toLocaleString('en')} activations) sends an ` +
  'identifier near the end of the activations of one license, stored in the database as one ' +
  'document beforehand: the license service answers it with the one command of any validate, ' +
  'which finds the license by key and the identifier among its activations and returns the ' +
  'license without them. How fast the database finds it sets the rate of that row; it runs with ' +
  `at most ${MANY_ACTIVATIONS_CONNECTIONS} connections, so that on a slow database its requests ` +
  'do not wait in turn past the RPC timeout.';
