import type { AdminWithToken } from '../../libs/contracts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { AdminDirectory } from '../../services/management/admins/admin-directory.js';
import {
  AdminAuthenticator,
  VERIFIED_TOKEN_TTL_MS,
  newToken,
  verifySecret,
} from '../../services/management/admins/admin-tokens.js';
import {
  FAILED_ATTEMPTS_WINDOW_MS,
  FailedAttempts,
  MAX_FAILED_ATTEMPTS,
} from '../../services/management/admins/failed-attempts.js';
import type { ManagementStores } from '../../services/management/stores.js';
import { memoryManagementStores } from '../support/management-memory-stores.js';

/**
 * Checking a named admin's token (docs/api-decisions.md, "Admins and roles"): a change made
 * while a token is being checked, the same work whether its id exists, and the bound on failed
 * attempts per token id.
 */

const logger = createLogger('test', 'silent');
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** verifySecret itself, with the hashes it was given, held open on demand. */
function secretChecks() {
  const hashes: string[] = [];
  let holding = false;
  let held: (() => void)[] = [];
  return {
    hashes,
    async verify(secret: string, hash: string): Promise<boolean> {
      hashes.push(hash);
      const matches = await verifySecret(secret, hash);
      if (holding) await new Promise<void>((resolve) => held.push(resolve));
      return matches;
    },
    hold() {
      holding = true;
    },
    async inFlight() {
      while (held.length === 0) await nextTurn();
    },
    release() {
      holding = false;
      for (const resolve of held) resolve();
      held = [];
    },
  };
}

/** The scheme, its costs and the lengths of salt and key: what the time of a check follows. */
const costOf = (hash: string) => hash.split('$').map((part, i) => (i < 4 ? part : part.length));

let stores: ManagementStores;
let now: Date;
let checks: ReturnType<typeof secretChecks>;
let authenticator: AdminAuthenticator;
let directory: AdminDirectory;
let ada: AdminWithToken;
let bob: AdminWithToken;
beforeEach(async () => {
  stores = memoryManagementStores();
  now = new Date('2026-05-01T12:00:00Z');
  checks = secretChecks();
  authenticator = new AdminAuthenticator([], stores.admins, logger, {
    clock: () => now,
    verify: (secret, hash) => checks.verify(secret, hash),
  });
  directory = new AdminDirectory(stores.admins, authenticator, () => now);
  ada = await directory.create('Ada', 'owner');
  bob = await directory.create('Bob', 'owner');
});

describe('a change made on this replica while a token is being checked', () => {
  const changes = [
    { change: 'its revocation', make: () => directory.revokeToken(bob.id, bob.tokens[0]!.id) },
    { change: 'a lesser role', make: () => directory.update(bob.id, { role: 'viewer' }) },
    { change: "its admin's removal", make: () => directory.remove(bob.id) },
  ];

  test.each(changes)('holds for the request in flight and the next one: $change', async (c) => {
    checks.hold();
    const first = authenticator.authenticate(bob.token);
    await checks.inFlight();
    await c.make();
    checks.release();
    const expected = c.change === 'a lesser role' ? 'viewer' : undefined;
    expect((await first)?.role).toBe(expected);
    expect((await authenticator.authenticate(bob.token))?.role).toBe(expected);
    expect((await authenticator.authenticate(ada.token))?.role).toBe('owner');
  });

  test('a removed owner whose first use was in flight cannot then make an owner', async () => {
    checks.hold();
    const first = authenticator.authenticate(bob.token);
    await checks.inFlight();
    await directory.remove(bob.id);
    checks.release();
    await first;
    // What the route creating an admin checks first: who the token belongs to.
    expect(await authenticator.authenticate(bob.token)).toBeNull();
  });

  test('on another replica, such a check is trusted no longer than the cache time', async () => {
    const other = new AdminAuthenticator([], stores.admins, logger, {
      clock: () => now,
      verify: (secret, hash) => checks.verify(secret, hash),
    });
    const started = now.getTime();
    checks.hold();
    const first = other.authenticate(bob.token);
    await checks.inFlight();
    now = new Date(started + 5_000);
    await directory.revokeToken(bob.id, bob.tokens[0]!.id);
    checks.release();
    // That replica knows nothing of the change: within the bound, counted from its read.
    expect(await first).not.toBeNull();
    now = new Date(started + VERIFIED_TOKEN_TTL_MS - 1);
    expect(await other.authenticate(bob.token)).not.toBeNull();
    now = new Date(started + VERIFIED_TOKEN_TTL_MS);
    expect(await other.authenticate(bob.token)).toBeNull();
  });
});

describe('whether a token id exists does not show in the work done', () => {
  test('an unknown token id runs the same scrypt as a known one with a wrong secret', async () => {
    const stored = (await stores.admins.findByToken(ada.tokens[0]!.id))!.tokens[0]!.hash;
    expect(await authenticator.authenticate(`adm_${ada.tokens[0]!.id}_${newToken().secret}`)).toBe(
      null,
    );
    expect(await authenticator.authenticate(newToken().token)).toBeNull();
    expect(checks.hashes).toHaveLength(2);
    expect(checks.hashes[0]).toBe(stored);
    expect(costOf(checks.hashes[1]!)).toEqual(costOf(stored));
  });
});

describe('failed attempts per token id', () => {
  const wrong = () => `adm_${bob.tokens[0]!.id}_${newToken().secret}`;
  const fail = async (times: number) => {
    for (let i = 0; i < times; i++) expect(await authenticator.authenticate(wrong())).toBeNull();
  };

  test('past the bound the id is refused, right secret too, until its window ends', async () => {
    const first = now.getTime();
    await fail(MAX_FAILED_ATTEMPTS);
    expect(await authenticator.authenticate(bob.token)).toBeNull();
    // Refused with the same work as a wrong secret: one scrypt, against a stand-in hash.
    expect(checks.hashes).toHaveLength(MAX_FAILED_ATTEMPTS + 1);
    expect(costOf(checks.hashes.at(-1)!)).toEqual(costOf(checks.hashes[0]!));
    now = new Date(first + FAILED_ATTEMPTS_WINDOW_MS - 1);
    expect(await authenticator.authenticate(bob.token)).toBeNull();
    now = new Date(first + FAILED_ATTEMPTS_WINDOW_MS);
    expect((await authenticator.authenticate(bob.token))?.name).toBe('Bob');
  });

  test('fewer failures refuse nothing, and other token ids are not touched', async () => {
    await fail(MAX_FAILED_ATTEMPTS - 1);
    expect((await authenticator.authenticate(bob.token))?.name).toBe('Bob');
    const second = await directory.addToken(bob.id);
    await fail(1);
    expect((await authenticator.authenticate(second.token))?.name).toBe('Bob');
    expect((await authenticator.authenticate(ada.token))?.name).toBe('Ada');
  });

  test('failures while refused do not lengthen the refusal', async () => {
    const first = now.getTime();
    await fail(MAX_FAILED_ATTEMPTS);
    now = new Date(first + FAILED_ATTEMPTS_WINDOW_MS / 2);
    await fail(MAX_FAILED_ATTEMPTS);
    now = new Date(first + FAILED_ATTEMPTS_WINDOW_MS);
    expect((await authenticator.authenticate(bob.token))?.name).toBe('Bob');
  });

  test('the count keeps no window that has ended', () => {
    const failures = new FailedAttempts(2, 1_000);
    failures.record('a', 0);
    failures.record('a', 1);
    expect(failures.refuses('a', 999)).toBe(true);
    failures.record('b', 1_000);
    expect(failures.refuses('a', 1_000)).toBe(false);
    failures.record('a', 1_000);
    expect(failures.refuses('a', 1_001)).toBe(false);
  });
});
