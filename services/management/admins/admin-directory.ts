import {
  LicensingError,
  MAX_ADMIN_TOKENS,
  type Admin,
  type AdminRole,
  type AdminTokenInfo,
  type AdminWithToken,
  type NewAdminToken,
} from '../../../libs/contracts/index.js';
import { newToken, storedToken, type AdminAuthenticator } from './admin-tokens.js';
import { takesAnOwner } from './roles.js';
import type { AdminRecord, AdminStore, StoredToken } from '../stores.js';

/** An admin as the API shows them: their tokens by id and dates, never a hash. */
export function adminView(admin: AdminRecord): Admin {
  return {
    id: admin.id,
    name: admin.name,
    role: admin.role,
    created_at: admin.created_at.toISOString(),
    tokens: admin.tokens.map(tokenView),
  };
}

function tokenView(token: StoredToken): AdminTokenInfo {
  return {
    id: token.id,
    created_at: token.created_at.toISOString(),
    last_used_at: token.last_used_at?.toISOString() ?? null,
  };
}

const noAdmin = (id: number) => new LicensingError('NOT_FOUND', `There is no admin ${id}.`);

const LAST_OWNER =
  'This is the last owner: make another admin an owner first, so that someone can still ' +
  'manage admins.';

/**
 * Named admins and their tokens: made, listed, renamed, given another role, removed. The last
 * owner can be neither removed nor given a lesser role (409 LAST_OWNER). Without transactions,
 * such a change is written first and the owners counted after it: if none is left, the change is
 * undone and refused, so two owners demoting each other at once are both refused rather than
 * both allowed. Every change that takes something from an admin is forgotten by this replica's
 * cache of verified tokens at once.
 */
export class AdminDirectory {
  constructor(
    private readonly admins: AdminStore,
    private readonly authenticator: Pick<AdminAuthenticator, 'forgetAdmin' | 'forgetToken'>,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async list(): Promise<Admin[]> {
    return (await this.admins.list()).map(adminView);
  }

  async get(id: number): Promise<Admin> {
    const admin = await this.admins.find(id);
    if (!admin) throw noAdmin(id);
    return adminView(admin);
  }

  async create(name: string, role: AdminRole): Promise<AdminWithToken> {
    const now = this.clock();
    const made = newToken();
    const admin = await this.admins.create({
      name,
      role,
      created_at: now,
      token: await storedToken(made, now),
    });
    return { ...adminView(admin), token: made.token };
  }

  async addToken(id: number): Promise<NewAdminToken> {
    const now = this.clock();
    const made = newToken();
    const token = await storedToken(made, now);
    const admin = await this.admins.addToken(id, token, MAX_ADMIN_TOKENS);
    if (!admin) {
      await this.get(id);
      throw new LicensingError(
        'INVALID_REQUEST',
        `This admin holds ${MAX_ADMIN_TOKENS} tokens already: revoke one first.`,
      );
    }
    return { ...tokenView(token), admin_id: id, token: made.token };
  }

  async revokeToken(id: number, tokenId: string): Promise<AdminTokenInfo> {
    const token = await this.admins.revokeToken(id, tokenId);
    if (!token) {
      await this.get(id);
      throw new LicensingError('NOT_FOUND', `Admin ${id} has no token ${tokenId}.`);
    }
    this.authenticator.forgetToken(tokenId);
    return tokenView(token);
  }

  async update(id: number, changes: { name?: string; role?: AdminRole }): Promise<Admin> {
    // The role is changed only from the one read, so the owners counted are those of this change.
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await this.admins.find(id);
      if (!current) throw noAdmin(id);
      const role = changes.role ?? current.role;
      const updated = await this.admins.update(id, changes, current.role);
      if (!updated) continue;
      if (takesAnOwner(current.role, role) && (await this.admins.countOwners()) === 0) {
        await this.admins.update(id, { role: current.role }, role);
        throw new LicensingError('LAST_OWNER', LAST_OWNER);
      }
      if (role !== current.role) this.authenticator.forgetAdmin(id);
      return adminView(updated);
    }
    throw new LicensingError('INTERNAL_ERROR', 'The admin kept changing meanwhile: try again.');
  }

  async remove(id: number): Promise<Admin> {
    const retiring = await this.admins.retire(id);
    if (!retiring) throw noAdmin(id);
    if (retiring.role === 'owner' && (await this.admins.countOwners()) === 0) {
      await this.admins.keep(id);
      throw new LicensingError('LAST_OWNER', LAST_OWNER);
    }
    this.authenticator.forgetAdmin(id);
    await this.admins.remove(id);
    return adminView(retiring);
  }
}
