import {
  createHash,
  randomBytes,
  scrypt as scryptCallback,
  timingSafeEqual,
  type ScryptOptions,
} from 'node:crypto';
import type { AdminRole } from '../../../libs/contracts/index.js';
import type { Logger } from '../../../libs/logging/index.js';
import { FailedAttempts } from './failed-attempts.js';
import type { AdminRecord, AdminStore, StoredToken } from '../stores.js';

/**
 * Admin tokens (docs/api-decisions.md, "Admins and roles"): `adm_<id>_<secret>`. The id (8
 * random bytes, hex) names the token in lists, in revocations and in the log, and finds its admin
 * with one indexed read; the secret (32 random bytes, base64url) is kept only as an scrypt hash
 * (Node's crypto, OpenSSL's scrypt), so the database alone opens nothing.
 */

/** Who makes a request: a named admin, or the bootstrap owner of ADMIN_TOKENS. */
export interface ActingAdmin {
  /** 0 for the bootstrap owner. */
  id: number;
  name: string;
  role: AdminRole;
  bootstrap: boolean;
  /** The token's id; null for a token of ADMIN_TOKENS. */
  token_id: string | null;
}

/** A token of ADMIN_TOKENS: the owner every deployment starts with, named in the audit log so. */
export const BOOTSTRAP_OWNER: ActingAdmin = {
  id: 0,
  name: 'Bootstrap owner (ADMIN_TOKENS)',
  role: 'owner',
  bootstrap: true,
  token_id: null,
};

const TOKEN_PATTERN = /^adm_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;

/** A new token: its id, and the whole token to show once. */
export function newToken(): { id: string; secret: string; token: string } {
  const id = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { id, secret, token: `adm_${id}_${secret}` };
}

/** The id and secret of a token in the named admins' form; null for any other text. */
export function parseToken(presented: string): { id: string; secret: string } | null {
  const match = TOKEN_PATTERN.exec(presented);
  return match ? { id: match[1]!, secret: match[2]! } : null;
}

/**
 * scrypt's cost: N = 2^14, r = 8, p = 1 (16 MiB, some tens of milliseconds). The secret is 256
 * random bits, so the cost guards against nothing a guess could find; it keeps a leaked database
 * from being a list of usable tokens at no cost to check.
 */
const SCRYPT = { N: 16_384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

function scrypt(secret: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scryptCallback(secret, salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** `scrypt$N$r$p$salt$hash`, so that a later cost still reads the hashes written before it. */
function hashText(salt: Buffer, key: Buffer): string {
  const { N, r, p } = SCRYPT;
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  return hashText(salt, await scrypt(secret, salt, SCRYPT));
}

/**
 * What a secret is checked against when there is no hash to check it against (no such token id,
 * or the id is refused for its failed attempts): the same cost as a real hash, matching nothing,
 * so the time taken does not tell an existing token id from another.
 */
const STAND_IN_HASH = hashText(randomBytes(16), randomBytes(KEY_LENGTH));

export async function verifySecret(secret: string, hash: string): Promise<boolean> {
  const [scheme, N, r, p, salt, key] = hash.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const options = { N: Number(N), r: Number(r), p: Number(p), maxmem: 64 * 1024 * 1024 };
  const actual = await scrypt(secret, Buffer.from(salt, 'base64url'), options);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/** A token as the store keeps it: its id and the hash of its secret. */
export async function storedToken(
  made: { id: string; secret: string },
  now: Date,
): Promise<StoredToken> {
  return { id: made.id, hash: await hashSecret(made.secret), created_at: now, last_used_at: null };
}

/**
 * How long a replica trusts a token it verified without asking the database again: the bound
 * within which a revoked token, a removed admin or a changed role takes effect on the other
 * replicas (on the replica that made the change, at once).
 */
export const VERIFIED_TOKEN_TTL_MS = 10_000;

/** The most verified tokens a replica keeps; past it the oldest goes. */
const MAX_VERIFIED_TOKENS = 1_000;

/** Equal-length digests, so comparing never reveals a token's length or a matching prefix. */
const digest = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

const actingAs = (admin: AdminRecord, tokenId: string): ActingAdmin => ({
  id: admin.id,
  name: admin.name,
  role: admin.role,
  bootstrap: false,
  token_id: tokenId,
});

/** What a test may replace: the time, the secret's check, the bound on failed attempts. */
export interface AuthenticatorOptions {
  clock?: () => Date;
  verify?: (secret: string, hash: string) => Promise<boolean>;
  failures?: FailedAttempts;
}

/**
 * Tells who a bearer token belongs to: a token of ADMIN_TOKENS is the bootstrap owner; a named
 * admin's token is looked up by its id and its secret checked with scrypt once, then trusted for
 * VERIFIED_TOKEN_TTL_MS, so a console page making many calls pays scrypt once.
 */
export class AdminAuthenticator {
  private readonly bootstrap: Buffer[];
  /** Verified tokens by the digest of the whole token (never the token itself). */
  private readonly verified = new Map<string, { admin: ActingAdmin; until: number }>();
  /** Counts the changes to admins made on this replica (forgetAdmin, forgetToken). */
  private generation = 0;
  private readonly clock: () => Date;
  private readonly verify: (secret: string, hash: string) => Promise<boolean>;
  private readonly failures: FailedAttempts;

  constructor(
    bootstrapTokens: readonly string[],
    private readonly admins: AdminStore,
    private readonly logger: Logger,
    options: AuthenticatorOptions = {},
  ) {
    this.bootstrap = bootstrapTokens.map(digest);
    this.clock = options.clock ?? (() => new Date());
    this.verify = options.verify ?? verifySecret;
    this.failures = options.failures ?? new FailedAttempts();
  }

  /** The admin the token belongs to, or null when it is no valid token. */
  async authenticate(presented: string): Promise<ActingAdmin | null> {
    const candidate = digest(presented);
    // Every bootstrap token is compared, so the time taken does not tell which one matched.
    let bootstrap = false;
    for (const token of this.bootstrap) bootstrap = timingSafeEqual(candidate, token) || bootstrap;
    if (bootstrap) return BOOTSTRAP_OWNER;

    const parsed = parseToken(presented);
    if (parsed === null) return null;
    const key = candidate.toString('base64');
    const now = this.clock().getTime();
    const cached = this.verified.get(key);
    if (cached && cached.until > now) return cached.admin;
    this.verified.delete(key);

    const generation = this.generation;
    const admin = await this.admins.findByToken(parsed.id);
    const token = admin?.tokens.find(({ id }) => id === parsed.id);
    const refused = this.failures.refuses(parsed.id, now);
    // One scrypt for every token of this form: unknown id, refused id and wrong secret alike.
    const matches = await this.verify(
      parsed.secret,
      token && !refused ? token.hash : STAND_IN_HASH,
    );
    if (!admin || !token || refused) return null;
    if (!matches) {
      this.failures.record(parsed.id, now);
      return null;
    }
    const current = await this.asChanged(admin, token, generation);
    if (current === null) return null;
    const acting = actingAs(current.admin, token.id);
    // Kept only when no admin changed here since the read: a read older than a change whose
    // forgetting is done already would be trusted past it.
    if (current.generation === this.generation) {
      if (this.verified.size >= MAX_VERIFIED_TOKENS) {
        this.verified.delete(this.verified.keys().next().value!);
      }
      // The time counts from before the read, which bounds a change made on another replica.
      this.verified.set(key, { admin: acting, until: now + VERIFIED_TOKEN_TTL_MS });
    }
    // When it was last used, for the Admins page: written with each full check, not awaited.
    this.admins.touchToken(token.id, this.clock()).catch((error: unknown) => {
      this.logger.warn({ err: error, token_id: token.id }, 'could not record a token use');
    });
    return acting;
  }

  /**
   * The admin as they are after the changes made on this replica while the secret was checked:
   * the one read when none was, otherwise read again (the token gone: null), so a request
   * answered after a revocation, a removal or a new role is judged by it. The secret was checked
   * against this very hash, so no scrypt again.
   */
  private async asChanged(
    admin: AdminRecord,
    token: StoredToken,
    readAt: number,
  ): Promise<{ admin: AdminRecord; generation: number } | null> {
    if (readAt === this.generation) return { admin, generation: readAt };
    const generation = this.generation;
    const again = await this.admins.findByToken(token.id);
    const same = again?.tokens.some(({ id, hash }) => id === token.id && hash === token.hash);
    return again && same ? { admin: again, generation } : null;
  }

  /** Drops what this replica trusts of an admin's tokens (their role changed, they left). */
  forgetAdmin(adminId: number): void {
    this.generation++;
    for (const [key, { admin }] of this.verified) {
      if (admin.id === adminId) this.verified.delete(key);
    }
  }

  /** Drops what this replica trusts of one token (revoked). */
  forgetToken(tokenId: string): void {
    this.generation++;
    for (const [key, { admin }] of this.verified) {
      if (admin.token_id === tokenId) this.verified.delete(key);
    }
  }
}
