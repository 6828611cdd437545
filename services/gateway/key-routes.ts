import { z } from 'zod';
import { JwkSet } from '../../libs/contracts/index.js';
import { defineRoute, type Route } from '../../libs/http/index.js';
import type { GatewayDeps } from './gateway-deps.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/** RFC 7517's media type of a key set. */
const JWK_SET_TYPE = 'application/jwk-set+json';

const KeySetHeaders = z.object({
  'Cache-Control': z.literal('public, max-age=3600').meta({
    description:
      'Keys change only with a rotation; a client that meets a keyid it does not know fetches ' +
      'the set again.',
  }),
});

/**
 * `GET {api_base}/keys`: the public keys answers and license files are signed with, as a JWK Set
 * (the signer first, then the keys kept for what was signed before a rotation). As JOSE tooling
 * reads a key set, not in the `{"data": ...}` envelope, and unsigned: a client pins or fetches
 * it over TLS (docs/api-decisions.md, "Signed answers").
 */
export const keySetRoute: Route<GatewayDeps> = defineRoute({
  method: 'get',
  path: `${API_BASE}/keys`,
  operationId: 'signingKeys',
  summary:
    'The Ed25519 public keys of signed answers and license files, as a JWK Set, each named by ' +
    'its RFC 7638 thumbprint (the `keyid` of a signature, the `kid` of a license file).',
  tag: 'Signatures',
  access: 'public',
  success: {
    200: {
      description: 'The key set, the current signer first.',
      json: JwkSet,
      contentType: JWK_SET_TYPE,
      headers: KeySetHeaders,
    },
  },
  errors: {},
  handle: async (_input, { signing }, _req, res) => {
    res
      .type(JWK_SET_TYPE)
      .set('Cache-Control', 'public, max-age=3600')
      .send(JSON.stringify(signing.signer.keySet));
  },
});
