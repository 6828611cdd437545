import {
  LICENSE_FILE_TYPE,
  LICENSE_FILE_VERSION,
  licenseFile,
  licenseFileSigningInput,
  type LicenseFilePayload,
} from '../license-file.js';
import { toBase64Url } from '../structured-fields.js';
import type { AnswerVectorKeys } from './answer-vectors.js';
import { VECTOR_NOW } from './answer-vectors.js';

/** A license file, and what a client that pins `keys` answers when it checks it. */
export interface LicenseFileVector {
  name: string;
  why: string;
  expect: 'accept' | 'refuse';
  /** For a refused file: the client's code. */
  code?: string;
  file: string;
  /** The client's product. */
  product_id: number;
  /** The identifier the client checks the file against, when it does. */
  identifier?: string;
  /** The client's clock, in seconds since the epoch. */
  now: number;
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString();
const ISSUED = VECTOR_NOW - 3600;
const LEASE_END = VECTOR_NOW + 7 * 86400;

function payload(overrides: Partial<LicenseFilePayload> = {}): LicenseFilePayload {
  const issued = overrides.issued_at ?? iso(ISSUED);
  const expires = overrides.expires_at ?? iso(LEASE_END);
  return {
    ver: LICENSE_FILE_VERSION,
    product_id: 7,
    identifier: 'example.com',
    license: {
      valid: true,
      status: 'active',
      license_key: 'VECTOR-KEY-1',
      product: 'Vector Plugin',
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
    ...overrides,
  };
}

/** Good license files and ones a client must refuse, with the code it refuses them with. */
export async function licenseFileVectors(keys: AnswerVectorKeys): Promise<LicenseFileVector[]> {
  const make = async (content: LicenseFilePayload, key = keys.signer, kid = key.jwk.kid) => {
    const input = licenseFileSigningInput({ alg: 'EdDSA', typ: LICENSE_FILE_TYPE, kid }, content);
    return licenseFile(input, await key.sign(input));
  };
  const good = await make(payload());
  const [header, , signature] = good.split('.') as [string, string, string];
  const changed = payload({ license: { ...payload().license, activation_limit: 30 } });
  const tampered = `${header}.${toBase64Url(new TextEncoder().encode(JSON.stringify(changed)))}.${signature}`;
  const vector = (
    name: string,
    why: string,
    file: string,
    code?: string,
    extra: Partial<LicenseFileVector> = {},
  ): LicenseFileVector => ({
    name,
    why,
    expect: code === undefined ? 'accept' : 'refuse',
    ...(code === undefined ? {} : { code }),
    file,
    product_id: 7,
    now: VECTOR_NOW,
    ...extra,
  });
  return [
    vector('good', 'a license file as checkout issues it', good),
    vector('good-for-its-identifier', 'checked against the identifier it is for', good, undefined, {
      identifier: 'example.com',
    }),
    vector('tampered', 'its payload changed after signing', tampered, 'SIGNATURE_INVALID'),
    vector(
      'other-key',
      'signed by a key that is not pinned',
      await make(payload(), keys.other),
      'SIGNATURE_INVALID',
    ),
    vector(
      'other-key-pinned-kid',
      "signed by another key that names the pinned key's id",
      await make(payload(), keys.other, keys.signer.jwk.kid),
      'SIGNATURE_INVALID',
    ),
    vector(
      'expired-lease',
      'its lease ended an hour before this clock',
      await make(payload({ expires_at: iso(VECTOR_NOW - 3600) })),
      'LICENSE_FILE_EXPIRED',
    ),
    vector('other-product', 'checked by the client of another product', good, 'PRODUCT_MISMATCH', {
      product_id: 8,
    }),
    vector(
      'other-identifier',
      'checked against another identifier than the one it is for',
      good,
      'IDENTIFIER_MISMATCH',
      { identifier: 'other.example' },
    ),
    vector(
      'clock-set-back',
      'this clock is a day before the file was issued',
      good,
      'CLOCK_TAMPERED',
      { now: ISSUED - 86400 },
    ),
    vector(
      'not-a-license-file',
      'three parts, but no JWS of this type',
      'a.b.c',
      'SIGNATURE_INVALID',
    ),
  ];
}
