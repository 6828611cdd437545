import { z } from 'zod';

/**
 * What the public API publishes of its signing keys (docs/api-decisions.md, "Signed answers").
 * The formats themselves are libs/signatures'; these are the schemas the routes answer with and
 * the documents show.
 */

/** An Ed25519 public key (RFC 8037) named by its JWK thumbprint (RFC 7638). */
export const PublicJwk = z
  .object({
    kty: z.literal('OKP'),
    crv: z.literal('Ed25519'),
    x: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
    kid: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
    use: z.literal('sig'),
    alg: z.literal('EdDSA'),
  })
  .meta({ description: 'An Ed25519 public key; `kid` is its RFC 7638 thumbprint.' });

/** RFC 7517: the keys answers are signed with, the current signer first. */
export const JwkSet = z.object({ keys: z.array(PublicJwk) });
