import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { withTimeout } from '../../libs/process/timeout.js';
import { isPublicAddress, literalAddress } from './address-rules.js';
import { ATTEMPT_TIMEOUT_MS, MAX_RESPONSE_READ_BYTES } from './rules.js';

/** How long resolving an endpoint's name may take when it is registered. */
const RESOLVE_TIMEOUT_MS = 5000;

/** An address an endpoint may not be sent to, unless WEBHOOK_ALLOW_PRIVATE_URLS is true. */
export class AddressRefused extends Error {
  constructor(readonly address: string) {
    super(`${address} is not a public address`);
    this.name = 'AddressRefused';
  }
}

/** Where webhooks may go: public addresses only, unless the operator allowed private ones. */
export interface DestinationPolicy {
  allowPrivate: boolean;
}

function resolveAll(hostname: string, family: number): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, family }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );
}

/** The first address of `addresses` the policy refuses, if any. */
function refusedAmong(addresses: readonly string[], policy: DestinationPolicy): string | undefined {
  return policy.allowPrivate ? undefined : addresses.find((address) => !isPublicAddress(address));
}

/**
 * Why a URL cannot be registered, or null when it can: its host must be, or resolve only to,
 * public addresses. A name that does not resolve (yet, or from here) is accepted: its attempts
 * fail until it does. The check is made again at every attempt (`postWebhook`), since a name may
 * resolve elsewhere later.
 */
export async function destinationProblem(
  url: string,
  policy: DestinationPolicy,
): Promise<string | null> {
  if (policy.allowPrivate) return null;
  const { hostname } = new URL(url);
  const literal = literalAddress(hostname);
  let addresses: string[];
  if (literal !== null) {
    addresses = [literal];
  } else {
    try {
      const found = await withTimeout(
        resolveAll(hostname, 0),
        RESOLVE_TIMEOUT_MS,
        `resolving ${hostname} took more than ${RESOLVE_TIMEOUT_MS / 1000} s`,
      );
      addresses = found.map(({ address }) => address);
    } catch {
      return null;
    }
  }
  const refused = refusedAmong(addresses, policy);
  return refused === undefined
    ? null
    : `url: ${hostname} is or resolves to ${refused}, which is not a public address ` +
        '(loopback, private, link-local and metadata addresses are refused)';
}

/**
 * Resolves a name as Node's sockets do, and refuses it when any address is not public: the
 * connection is made to an address checked here, so a name cannot be checked once and connect
 * inward later.
 */
function checkedLookup(policy: DestinationPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveAll(hostname, options.family === 4 || options.family === 6 ? options.family : 0).then(
      (addresses) => {
        const refused = refusedAmong(
          addresses.map(({ address }) => address),
          policy,
        );
        if (refused !== undefined) {
          callback(new AddressRefused(refused), '', 0);
        } else if (options.all) {
          (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(
            null,
            addresses,
          );
        } else {
          callback(null, addresses[0]!.address, addresses[0]!.family);
        }
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

/** What an attempt got: an answer's status and start, or the error that stopped it. */
export interface AttemptOutcome {
  status: number | null;
  error: string | null;
  duration_ms: number;
  /** The start of the answer (at most 4 KB read), as text. */
  response: string | null;
}

const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

/**
 * One attempt: `POST` of `body` with `headers` to `url`, within 10 s (connection, answer and the
 * first 4 KB of its body), not following redirects. Never throws: a refused address, a network
 * error or the timeout is the outcome's `error`.
 */
export function postWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  policy: DestinationPolicy,
): Promise<AttemptOutcome> {
  const started = process.hrtime.bigint();
  const elapsed = () => Math.round(Number(process.hrtime.bigint() - started) / 1e6);
  return new Promise((resolve) => {
    let done = false;
    const finish = (outcome: Omit<AttemptOutcome, 'duration_ms'>) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      request.destroy();
      resolve({ ...outcome, duration_ms: elapsed() });
    };
    const target = new URL(url);
    const literal = literalAddress(target.hostname);
    const protocol = target.protocol === 'https:' ? 'https:' : 'http:';
    const client = protocol === 'https:' ? https : http;
    const payload = Buffer.from(body, 'utf8');
    const request = client.request(target, {
      method: 'POST',
      agent: agents[protocol],
      lookup: checkedLookup(policy),
      headers: {
        ...headers,
        'content-type': 'application/json',
        'content-length': String(payload.length),
        'user-agent': 'licensing-service-webhooks',
      },
    });
    let status: number | null = null;
    const chunks: Buffer[] = [];
    let read = 0;
    const answered = () =>
      finish({ status, error: null, response: Buffer.concat(chunks).toString('utf8') });
    const timer = setTimeout(() => {
      // An answer whose status came in time counts, however slowly its body follows.
      if (status !== null) answered();
      else
        finish({
          status: null,
          error: `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`,
          response: null,
        });
    }, ATTEMPT_TIMEOUT_MS);
    request.on('response', (response) => {
      status = response.statusCode ?? null;
      response.on('data', (chunk: Buffer) => {
        const room = MAX_RESPONSE_READ_BYTES - read;
        chunks.push(chunk.subarray(0, room));
        read += Math.min(chunk.length, room);
        if (read >= MAX_RESPONSE_READ_BYTES) answered();
      });
      response.on('end', answered);
      response.on('error', answered);
    });
    request.on('error', (error) => {
      if (status !== null) return answered();
      const message =
        error instanceof AddressRefused
          ? `refused: ${error.message} (WEBHOOK_ALLOW_PRIVATE_URLS is off)`
          : `${(error as NodeJS.ErrnoException).code ?? 'error'}: ${error.message}`;
      finish({ status: null, error: message, response: null });
    });
    const refused = literal === null ? undefined : refusedAmong([literal], policy);
    if (refused !== undefined) {
      finish({
        status: null,
        error: `refused: ${new AddressRefused(refused).message} (WEBHOOK_ALLOW_PRIVATE_URLS is off)`,
        response: null,
      });
      return;
    }
    request.end(payload);
  });
}
