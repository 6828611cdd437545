import { LicensingError } from '../../libs/contracts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { AdminDirectory } from '../../services/management/admins/admin-directory.js';
import {
  AdminAuthenticator,
  BOOTSTRAP_OWNER,
  VERIFIED_TOKEN_TTL_MS,
  hashSecret,
  newToken,
  parseToken,
  verifySecret,
} from '../../services/management/admins/admin-tokens.js';
import {
  allowedOperations,
  requiredRole,
  roleAllows,
} from '../../services/management/admins/roles.js';
import { managementRoutes } from '../../services/management/routes.js';
import type { ManagementStores } from '../../services/management/stores.js';
import { memoryManagementStores } from '../support/management-memory-stores.js';

const logger = createLogger('test', 'silent');

describe('roles', () => {
  test('roles are ordered: viewer < support < owner', () => {
    expect(roleAllows('owner', 'owner')).toBe(true);
    expect(roleAllows('owner', 'viewer')).toBe(true);
    expect(roleAllows('support', 'support')).toBe(true);
    expect(roleAllows('support', 'owner')).toBe(false);
    expect(roleAllows('viewer', 'support')).toBe(false);
    expect(roleAllows('viewer', 'viewer')).toBe(true);
  });

  test('a route that says nothing needs viewer to read and owner to change', () => {
    expect(requiredRole({ method: 'get' })).toBe('viewer');
    for (const method of ['post', 'patch', 'put', 'delete'] as const) {
      expect(requiredRole({ method })).toBe('owner');
    }
    expect(requiredRole({ method: 'post', role: 'support' })).toBe('support');
    expect(requiredRole({ method: 'get', role: 'owner' })).toBe('owner');
  });

  test('support changes licenses and activations; the catalog, webhooks and jobs are owners’', () => {
    const support = allowedOperations('support', managementRoutes);
    for (const op of [
      'createLicense',
      'updateLicense',
      'changePlan',
      'renewLicense',
      'addActivation',
      'removeActivation',
      'listProducts',
      'listAuditLog',
    ]) {
      expect(support).toContain(op);
    }
    for (const op of [
      'createProduct',
      'updatePlan',
      'uploadFile',
      'createWebhook',
      'runJob',
      'createAdmin',
      'listAdmins',
    ]) {
      expect(support).not.toContain(op);
    }
  });

  test('a viewer may call every GET but the admins, and nothing else', () => {
    const viewer = allowedOperations('viewer', managementRoutes);
    const reads = managementRoutes.filter((r) => r.access === 'admin' && r.method === 'get');
    expect(viewer.sort()).toEqual(
      reads
        .map((r) => r.operationId)
        .filter((op) => op !== 'listAdmins' && op !== 'getAdmin')
        .sort(),
    );
  });

  test('an owner may call every admin route', () => {
    const admin = managementRoutes.filter((r) => r.access === 'admin').map((r) => r.operationId);
    expect(allowedOperations('owner', managementRoutes).sort()).toEqual(admin.sort());
  });
});

describe('admin tokens', () => {
  test('a token is adm_, 16 hex digits of id, _, and 43 characters of secret', () => {
    const made = newToken();
    expect(made.token).toMatch(/^adm_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(parseToken(made.token)).toEqual({ id: made.id, secret: made.secret });
    expect(parseToken('adm_xyz_abc')).toBeNull();
    expect(parseToken(`${made.token}x`)).toBeNull();
  });

  test('a secret is kept as an scrypt hash that verifies it and nothing else', async () => {
    const { secret } = newToken();
    const hash = await hashSecret(secret);
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(hash).not.toContain(secret);
    expect(await verifySecret(secret, hash)).toBe(true);
    expect(await verifySecret(newToken().secret, hash)).toBe(false);
    expect(await verifySecret(secret, 'plain$text')).toBe(false);
  });
});

describe('signing in', () => {
  let stores: ManagementStores;
  let now: Date;
  let authenticator: AdminAuthenticator;
  let directory: AdminDirectory;
  beforeEach(() => {
    stores = memoryManagementStores();
    now = new Date('2026-05-01T12:00:00Z');
    authenticator = new AdminAuthenticator(['bootstrap-token'], stores.admins, logger, {
      clock: () => now,
    });
    directory = new AdminDirectory(stores.admins, authenticator, () => now);
  });

  test('a token of ADMIN_TOKENS is the bootstrap owner', async () => {
    expect(await authenticator.authenticate('bootstrap-token')).toEqual(BOOTSTRAP_OWNER);
    expect(await authenticator.authenticate('bootstrap-tokenx')).toBeNull();
  });

  test("a named admin's token signs them in with their role; a wrong secret does not", async () => {
    const ada = await directory.create('Ada', 'support');
    expect(await authenticator.authenticate(ada.token)).toEqual({
      id: ada.id,
      name: 'Ada',
      role: 'support',
      bootstrap: false,
      token_id: ada.tokens[0]!.id,
    });
    const forged = `adm_${ada.tokens[0]!.id}_${newToken().secret}`;
    expect(await authenticator.authenticate(forged)).toBeNull();
    expect(await authenticator.authenticate(newToken().token)).toBeNull();
  });

  test('a full check records when the token was used', async () => {
    const ada = await directory.create('Ada', 'viewer');
    await authenticator.authenticate(ada.token);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await directory.get(ada.id)).tokens[0]?.last_used_at).toBe(now.toISOString());
  });

  test('a verified token is trusted without the store until the cache time ends', async () => {
    const ada = await directory.create('Ada', 'viewer');
    await authenticator.authenticate(ada.token);
    // Revoked behind this replica's back (another replica did it): still trusted a while...
    await stores.admins.revokeToken(ada.id, ada.tokens[0]!.id);
    now = new Date(now.getTime() + VERIFIED_TOKEN_TTL_MS - 1);
    expect(await authenticator.authenticate(ada.token)).not.toBeNull();
    // ...and refused once that time is over.
    now = new Date(now.getTime() + 1);
    expect(await authenticator.authenticate(ada.token)).toBeNull();
  });

  test('on the replica that made them, revocation, a new role and removal hold at once', async () => {
    const ada = await directory.create('Ada', 'owner');
    const bob = await directory.create('Bob', 'owner');
    await authenticator.authenticate(bob.token);
    await directory.update(bob.id, { role: 'viewer' });
    expect((await authenticator.authenticate(bob.token))?.role).toBe('viewer');

    const second = await directory.addToken(bob.id);
    await authenticator.authenticate(second.token);
    await directory.revokeToken(bob.id, second.id);
    expect(await authenticator.authenticate(second.token)).toBeNull();
    expect(await authenticator.authenticate(bob.token)).not.toBeNull();

    await directory.remove(bob.id);
    expect(await authenticator.authenticate(bob.token)).toBeNull();
    expect(await authenticator.authenticate(ada.token)).not.toBeNull();
  });
});

describe('the last owner', () => {
  let stores: ManagementStores;
  let directory: AdminDirectory;
  const forget = { forgetAdmin: () => {}, forgetToken: () => {} };
  beforeEach(() => {
    stores = memoryManagementStores();
    directory = new AdminDirectory(stores.admins, forget);
  });

  const refusal = async (work: Promise<unknown>) => {
    const error = await work.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(LicensingError);
    return error as LicensingError;
  };

  test('cannot be given a lesser role (409 LAST_OWNER), and stays owner', async () => {
    const ada = await directory.create('Ada', 'owner');
    const error = await refusal(directory.update(ada.id, { role: 'support' }));
    expect([error.code, error.status]).toEqual(['LAST_OWNER', 409]);
    expect(error.message).toMatch(/last owner/);
    expect((await directory.get(ada.id)).role).toBe('owner');
  });

  test('cannot be removed (409 LAST_OWNER), and stays', async () => {
    const ada = await directory.create('Ada', 'owner');
    await directory.create('Bob', 'support');
    expect((await refusal(directory.remove(ada.id))).code).toBe('LAST_OWNER');
    expect((await directory.list()).map((a) => a.name)).toEqual(['Ada', 'Bob']);
  });

  test('with another owner, either may go; then the other is the last', async () => {
    const ada = await directory.create('Ada', 'owner');
    const bob = await directory.create('Bob', 'owner');
    expect((await directory.update(ada.id, { role: 'viewer' })).role).toBe('viewer');
    expect((await refusal(directory.remove(bob.id))).code).toBe('LAST_OWNER');
    await directory.update(ada.id, { role: 'owner' });
    expect((await directory.remove(bob.id)).name).toBe('Bob');
  });

  test('two owners demoting each other at once: not both succeed', async () => {
    const ada = await directory.create('Ada', 'owner');
    const bob = await directory.create('Bob', 'owner');
    await Promise.allSettled([
      directory.update(ada.id, { role: 'viewer' }),
      directory.update(bob.id, { role: 'viewer' }),
    ]);
    expect(await stores.admins.countOwners()).toBeGreaterThanOrEqual(1);
  });

  test('renaming the last owner is no demotion', async () => {
    const ada = await directory.create('Ada', 'owner');
    expect((await directory.update(ada.id, { name: 'Ada L.' })).name).toBe('Ada L.');
  });

  test('an unknown admin is 404 NOT_FOUND', async () => {
    expect((await refusal(directory.update(9, { name: 'X' }))).code).toBe('NOT_FOUND');
    expect((await refusal(directory.remove(9))).code).toBe('NOT_FOUND');
    expect((await refusal(directory.addToken(9))).code).toBe('NOT_FOUND');
    expect((await refusal(directory.revokeToken(9, '0'.repeat(16)))).code).toBe('NOT_FOUND');
  });

  test('an admin holds at most 20 tokens: the 21st is refused with 400', async () => {
    const ada = await directory.create('Ada', 'owner');
    for (let i = 1; i < 20; i++) await directory.addToken(ada.id);
    const error = await refusal(directory.addToken(ada.id));
    expect([error.code, error.message]).toEqual(['INVALID_REQUEST', expect.stringMatching(/20/)]);
  });
});
