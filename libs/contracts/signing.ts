import { z } from 'zod';
import { Timestamp } from './shared.js';

/**
 * What the public API publishes and hands out signed (docs/api-decisions.md, "Signed answers"
 * and "License files"): its key set, and license files. The formats themselves are
 * libs/signatures'; these are the schemas the routes answer with and the documents show.
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

/** RFC 7517: the keys answers and license files are signed with, the current signer first. */
export const JwkSet = z.object({ keys: z.array(PublicJwk) });

/** A license file as checkout answers it (docs/api-decisions.md, "License files"). */
export const LicenseFileAnswer = z.object({
  license_file: z.string().meta({
    description:
      'The license file: a JWT (JWS compact, EdDSA) signed by a key of GET {api_base}/keys.',
  }),
  issued_at: Timestamp,
  expires_at: Timestamp.meta({ description: 'The end of the lease the file grants.' }),
});
export type LicenseFileAnswer = z.infer<typeof LicenseFileAnswer>;

/** The admin's view of the signing keys: which one signs, which are published, and where. */
export const SigningKeysView = z.object({
  current_kid: z
    .string()
    .nullable()
    .meta({ description: 'The key that signs now; null when no signing key is configured.' }),
  kids: z.array(z.string()).meta({ description: 'Every published key, the current one first.' }),
  key_set_url: z.string().meta({
    description:
      'Where the public API publishes them: {PUBLIC_URL}{api_base}/keys, or the path alone when ' +
      'PUBLIC_URL is unset.',
  }),
});
export type SigningKeysView = z.infer<typeof SigningKeysView>;
