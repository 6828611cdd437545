import type {
  AdminRef,
  AdminRole,
  AuditSource,
  AuditSourceKind,
} from '../../libs/contracts/index.js';

/**
 * What the management API keeps itself (docs/architecture.md, "Named admins and the audit log"):
 * named admins with their tokens, and the audit log. The records of licenses, products and the
 * rest stay with the services that own them.
 */

/** One of an admin's tokens: its id, and its secret only as a hash (admins/admin-tokens.ts). */
export interface StoredToken {
  id: string;
  hash: string;
  created_at: Date;
  last_used_at: Date | null;
}

export interface AdminRecord {
  id: number;
  name: string;
  role: AdminRole;
  created_at: Date;
  tokens: StoredToken[];
  /**
   * Set while the admin is being removed, until the check that an owner is left: a retiring
   * admin signs in no more and counts as no owner.
   */
  retiring: boolean;
}

export interface NewAdmin {
  name: string;
  role: AdminRole;
  created_at: Date;
  token: StoredToken;
}

/** Named admins and their tokens. */
export interface AdminStore {
  /** A new admin under the next id, holding one token. */
  create(admin: NewAdmin): Promise<AdminRecord>;
  /** Every admin not retiring, by id. */
  list(): Promise<AdminRecord[]>;
  /** An admin not retiring. */
  find(id: number): Promise<AdminRecord | null>;
  /** The admin, not retiring, holding the token with this id. */
  findByToken(tokenId: string): Promise<AdminRecord | null>;
  /** Admins not retiring whose role is owner. */
  countOwners(): Promise<number>;
  /**
   * Sets the name and role given; with `onlyIfRole`, only while the admin has that role (null:
   * no such admin, or the role was another).
   */
  update(
    id: number,
    changes: { name?: string; role?: AdminRole },
    onlyIfRole?: AdminRole,
  ): Promise<AdminRecord | null>;
  /** Marks the admin retiring (null: no such admin, or retiring already). */
  retire(id: number): Promise<AdminRecord | null>;
  /** Takes the retiring mark off again. */
  keep(id: number): Promise<void>;
  /** Removes a retiring admin and their tokens. */
  remove(id: number): Promise<void>;
  /** Adds a token (null: no such admin, or `limit` tokens held already). */
  addToken(id: number, token: StoredToken, limit: number): Promise<AdminRecord | null>;
  /** Removes a token of the admin (null: no such admin or token). */
  revokeToken(id: number, tokenId: string): Promise<StoredToken | null>;
  /** Records that a token was checked in full now. */
  touchToken(tokenId: string, at: Date): Promise<void>;
}

/** One change: made through the management API, or by a store (`source`). */
export interface AuditRecord {
  at: Date;
  /** The admin who made it; null for a store's change. */
  admin: AdminRef | null;
  source: AuditSource;
  /** The operation id of the route (of the route that makes the same change, for a store's). */
  action: string;
  target: string;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export interface StoredAuditRecord extends AuditRecord {
  id: string;
}

/**
 * An entry reported by another service (a domain event): `key` names it among every entry ever
 * reported (the event's id and the change's place in it), so the event delivered again writes
 * nothing twice.
 */
export interface ReportedAuditRecord extends AuditRecord {
  key: string;
}

/** Which entries: each field set narrows the list. */
export interface AuditFilter {
  admin?: number;
  source?: AuditSourceKind;
  action?: string;
  /** A whole target (`product:12`), or a kind of target (`product`): every product. */
  target?: string;
  /** From this moment on. */
  from?: Date;
  /** Before this moment. */
  to?: Date;
}

/**
 * The audit log: written once per change, read newest first, never changed. Entries older than
 * the retention are removed by the database.
 */
export interface AuditLogStore {
  record(entry: AuditRecord): Promise<void>;
  /** Writes each entry whose key no entry has yet; answers how many it wrote. */
  recordOnce(entries: readonly ReportedAuditRecord[]): Promise<number>;
  /** One page, newest first, and how many match. */
  page(
    filter: AuditFilter,
    page: number,
    perPage: number,
  ): Promise<{ entries: StoredAuditRecord[]; total: number }>;
  /** Every matching entry, newest first, read as they are used (the CSV export). */
  each(filter: AuditFilter): AsyncIterable<StoredAuditRecord>;
}

export interface ManagementStores {
  admins: AdminStore;
  audit: AuditLogStore;
}
