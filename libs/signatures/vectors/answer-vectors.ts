import {
  requestTarget,
  signatureField,
  signingInput,
  type SignedRequest,
} from '../message-signatures.js';
import { digestOf, type SeededKey } from './signing.js';

/** A request as a client sent it: the URL, the nonce and the body's `Content-Digest`. */
export interface VectorRequest {
  method: 'GET' | 'POST';
  url: string;
  nonce: string;
  /** The `Content-Digest` the request sent with its body; null for a GET. */
  content_digest: string | null;
  body: string | null;
}

/** A signed (or mis-signed) answer, and whether a client that pins `keys` must trust it. */
export interface AnswerVector {
  name: string;
  why: string;
  expect: 'accept' | 'refuse';
  /** The client's clock, in seconds since the epoch. */
  now: number;
  request: VectorRequest;
  response: { status: number; headers: Record<string, string>; body: string };
  /** For an accepted answer: its signature's `created`, seconds. */
  created?: number;
}

export interface AnswerVectorKeys {
  signer: SeededKey;
  other: SeededKey;
}

/** Every vector's time: 2026-01-01T00:00:00Z; signatures are made a minute before. */
export const VECTOR_NOW = 1767225600;
const CREATED = VECTOR_NOW - 60;
const TTL = 300;

const STORE = 'https://shop.example.com/api/index.php/v1/licensing';
const NONCE = 'bm9uY2Utb2YtdGhpcy1yZXF1ZXN0LTAx';
const OTHER_NONCE = 'YW5vdGhlci1yZXF1ZXN0cy1ub25jZS0y';

interface Signing {
  key?: SeededKey;
  /** The key id named, when it is not the signing key's. */
  keyid?: string;
  created?: number;
  expires?: number;
  /** What the signature covers, when it is not what is sent. */
  request?: Partial<SignedRequest>;
  status?: number;
  nonce?: string | null;
  contentDigest?: string;
}

async function form(path: string, fields: Record<string, string>): Promise<VectorRequest> {
  const body = new URLSearchParams(fields).toString();
  const content_digest = await digestOf(body);
  return { method: 'POST', url: `${STORE}/${path}`, nonce: NONCE, content_digest, body };
}

/** The answer `keys.signer` signs to `request` (with `signing` changing what it covers). */
async function answer(
  keys: AnswerVectorKeys,
  request: VectorRequest,
  status: number,
  body: string,
  signing: Signing = {},
): Promise<AnswerVector['response']> {
  const key = signing.key ?? keys.signer;
  const contentDigest = signing.contentDigest ?? (await digestOf(body));
  const nonce = signing.nonce === undefined ? request.nonce : signing.nonce;
  const created = signing.created ?? CREATED;
  const { base, signatureInput } = signingInput(
    {
      method: request.method,
      ...requestTarget(request.url),
      contentDigest: request.content_digest,
      ...signing.request,
    },
    { status: signing.status ?? status, contentDigest, nonce },
    { created, expires: signing.expires ?? created + TTL, keyid: signing.keyid ?? key.jwk.kid },
  );
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-digest': contentDigest,
    'signature-input': signatureInput,
    signature: signatureField(await key.sign(base)),
  };
  if (nonce !== null) headers['licensing-nonce'] = nonce;
  return { status, headers, body };
}

const json = (value: unknown) => JSON.stringify(value);

const VALID = json({
  data: {
    valid: true,
    status: 'active',
    license_key: 'VECTOR-KEY-1',
    product: 'Vector Plugin',
    plan: 'Single site',
    activation_type: 'domain',
    activation_limit: 3,
    activations_used: 1,
    expires_at: null,
    identifier_activated: true,
  },
});

/** Answers a client must trust, and answers it must refuse, each with why. */
export async function answerVectors(keys: AnswerVectorKeys): Promise<AnswerVector[]> {
  const fields = { license_key: 'VECTOR-KEY-1', identifier: 'example.com', product_id: '7' };
  const validate = await form('licenses/validate', fields);
  const activate = await form('licenses/activate', fields);
  const otherFields = await form('licenses/validate', { ...fields, license_key: 'VECTOR-KEY-2' });
  const update: VectorRequest = {
    method: 'GET',
    url: `${STORE}/updates/7?license_key=VECTOR-KEY-1&channel=beta`,
    nonce: NONCE,
    content_digest: null,
    body: null,
  };
  const refused = json({
    error: { code: 'LICENSE_INVALID', message: 'The license is not active.' },
  });
  const good = await answer(keys, validate, 200, VALID);
  const vector = (
    name: string,
    why: string,
    expect: 'accept' | 'refuse',
    request: VectorRequest,
    response: AnswerVector['response'],
    extra: Partial<AnswerVector> = {},
  ): AnswerVector => ({
    name,
    why,
    expect,
    now: VECTOR_NOW,
    request,
    response,
    ...(expect === 'accept' ? { created: CREATED } : {}),
    ...extra,
  });
  const tampered = VALID.replace('"activation_limit":3', '"activation_limit":9');
  return [
    vector('validate', 'a signed validation, as the server answers it', 'accept', validate, good),
    vector(
      'refusal',
      'a signed error answer verifies as well; the client then reads the refusal',
      'accept',
      activate,
      await answer(keys, activate, 403, refused),
    ),
    vector(
      'update-check',
      'a GET with a query and no body: no request digest is covered',
      'accept',
      update,
      await answer(keys, update, 200, json({ data: { update_available: false } })),
    ),
    vector('within-tolerance', 'signed 4 minutes ahead of this clock', 'accept', validate, good, {
      now: CREATED - 240,
    }),
    vector('tampered-body', 'the body changed after signing', 'refuse', validate, {
      ...good,
      body: tampered,
    }),
    vector(
      'tampered-body-and-digest',
      'the body changed and its Content-Digest made anew: the signature covers the old digest',
      'refuse',
      validate,
      {
        ...good,
        body: tampered,
        headers: { ...good.headers, 'content-digest': await digestOf(tampered) },
      },
    ),
    vector(
      'wrong-digest',
      'the Content-Digest, signed, names another body than the one sent',
      'refuse',
      validate,
      await answer(keys, validate, 200, VALID, { contentDigest: await digestOf('{"data":{}}') }),
    ),
    vector('tampered-status', 'signed as a 403, sent as a 200', 'refuse', validate, {
      ...(await answer(keys, validate, 200, VALID, { status: 403 })),
    }),
    vector(
      'other-nonce',
      "an answer to another request's nonce, replayed: it echoes that nonce",
      'refuse',
      validate,
      await answer(keys, validate, 200, VALID, { nonce: OTHER_NONCE }),
    ),
    vector(
      'moved-nonce',
      "another request's signed answer with this request's nonce put in its echo",
      'refuse',
      validate,
      {
        ...(await answer(keys, validate, 200, VALID, { nonce: OTHER_NONCE })),
        headers: {
          ...(await answer(keys, validate, 200, VALID, { nonce: OTHER_NONCE })).headers,
          'licensing-nonce': NONCE,
        },
      },
    ),
    vector(
      'no-nonce-covered',
      'signed without the nonce this request sent',
      'refuse',
      validate,
      await answer(keys, validate, 200, VALID, { nonce: null }),
    ),
    vector(
      'other-path',
      'the answer to an activate, presented as the answer to a validate',
      'refuse',
      validate,
      await answer(keys, validate, 200, VALID, {
        request: { path: requestTarget(activate.url).path },
      }),
    ),
    vector(
      'other-form-fields',
      'the answer to a request with another license key in its form',
      'refuse',
      validate,
      await answer(keys, validate, 200, VALID, {
        request: { contentDigest: otherFields.content_digest },
      }),
    ),
    vector(
      'other-query',
      'the answer to an update check with another query',
      'refuse',
      update,
      await answer(keys, update, 200, json({ data: { update_available: false } }), {
        request: { query: '?license_key=VECTOR-KEY-2&channel=beta' },
      }),
    ),
    vector(
      'other-key',
      'signed by a key that is not pinned',
      'refuse',
      validate,
      await answer(keys, validate, 200, VALID, { key: keys.other }),
    ),
    vector(
      'other-key-pinned-kid',
      "signed by another key that names the pinned key's id",
      'refuse',
      validate,
      await answer(keys, validate, 200, VALID, { key: keys.other, keyid: keys.signer.jwk.kid }),
    ),
    vector(
      'expired',
      'its signature expired an hour before this clock, past the 5 minutes of tolerance',
      'refuse',
      validate,
      await answer(keys, validate, 200, VALID, {
        created: VECTOR_NOW - 3900,
        expires: VECTOR_NOW - 3600,
      }),
    ),
    vector('from-the-future', 'signed 10 minutes ahead of this clock', 'refuse', validate, good, {
      now: CREATED - 600,
    }),
    vector('unsigned', 'no signature at all', 'refuse', validate, {
      status: 200,
      headers: { 'content-type': 'application/json', 'content-digest': await digestOf(VALID) },
      body: VALID,
    }),
  ];
}
