import { z } from 'zod';
import { MAX_ADMIN_NAME_LENGTH, adminRoles, auditSourceKinds } from '../bounds.js';
import { Id, Timestamp, WellFormedText, characterLength } from '../shared.js';
import { StoreConnectionSource, StoreEventSource } from '../stores/store-license-changes.js';

/** Named admins, their tokens and the audit log of the management API (docs/api-decisions.md). */

export const AdminRole = z.enum(adminRoles);
export type AdminRole = z.infer<typeof AdminRole>;

/** A person's name as the console and the audit log show it: one line, trimmed. */
export const AdminName = WellFormedText.transform((v) => v.trim())
  .refine((v) => v.length > 0, { message: 'must not be empty' })
  .refine((v) => characterLength(v) <= MAX_ADMIN_NAME_LENGTH, {
    message: `must be at most ${MAX_ADMIN_NAME_LENGTH} characters`,
  })
  // eslint-disable-next-line no-control-regex
  .refine((v) => !/[\u0000-\u001f\u007f]/.test(v), {
    message: 'must be one line without control characters',
  });

/** A token's public part, the id it is listed, revoked and logged by: 16 hex digits. */
export const AdminTokenId = z.string().regex(/^[0-9a-f]{16}$/, 'must be 16 hex digits');

/** `adm_`, the token's id, `_` and its secret: shown once, when made; stored only hashed. */
export const AdminToken = z.string().regex(/^adm_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);

/** One of an admin's tokens as listed: never its secret. */
export const AdminTokenInfo = z.object({
  id: AdminTokenId,
  created_at: Timestamp,
  /** When it was last checked in full; checks served from the cache of verified tokens are not counted. */
  last_used_at: Timestamp.nullable(),
});
export type AdminTokenInfo = z.infer<typeof AdminTokenInfo>;

export const Admin = z.object({
  id: Id,
  name: z.string(),
  role: AdminRole,
  created_at: Timestamp,
  tokens: z.array(AdminTokenInfo),
});
export type Admin = z.infer<typeof Admin>;

/** A new admin with their first token, shown this once. */
export const AdminWithToken = Admin.extend({ token: AdminToken });
export type AdminWithToken = z.infer<typeof AdminWithToken>;

export const AdminList = z.object({ admins: z.array(Admin) });
export type AdminList = z.infer<typeof AdminList>;

/** A new token of an admin, shown this once. */
export const NewAdminToken = AdminTokenInfo.extend({ admin_id: Id, token: AdminToken });
export type NewAdminToken = z.infer<typeof NewAdminToken>;

export const CreateAdminRequest = z.strictObject({ name: AdminName, role: AdminRole });
export type CreateAdminRequest = z.infer<typeof CreateAdminRequest>;

export const UpdateAdminRequest = z.strictObject({
  name: AdminName.optional(),
  role: AdminRole.optional(),
});
export type UpdateAdminRequest = z.infer<typeof UpdateAdminRequest>;

/**
 * The admin an audit entry names: a named admin's id, or 0 for the bootstrap owner (a token of
 * ADMIN_TOKENS).
 */
export const AdminRef = z.object({ id: z.number().int().nonnegative(), name: z.string() });
export type AdminRef = z.infer<typeof AdminRef>;

/** The caller of the management API: who they are, their role and what it lets them call. */
export const SignedInAdmin = AdminRef.extend({
  role: AdminRole,
  /** True for a token of ADMIN_TOKENS, which is no named admin. */
  bootstrap: z.boolean(),
  /** The token's id; null for a token of ADMIN_TOKENS. */
  token_id: AdminTokenId.nullable(),
  /** The operation ids of the management API this role may call. */
  operations: z.array(z.string()),
});
export type SignedInAdmin = z.infer<typeof SignedInAdmin>;

/** Any JSON value: the fields of a record before or after a change. */
const Fields = z.record(z.string(), z.unknown()).nullable();

export const AuditSourceKind = z.enum(auditSourceKinds);
export type AuditSourceKind = z.infer<typeof AuditSourceKind>;

/**
 * What made a change (libs/contracts/bounds.ts `auditSourceKinds`): an admin, named by the entry's
 * `admin`; a store's event the stores service applied; or its grace sweep, which suspends a license
 * past due longer than its connection's grace days.
 */
export const AuditSource = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('admin') }),
  z.object({
    kind: z.literal('store_event'),
    connection: StoreConnectionSource,
    event: StoreEventSource,
  }),
  z.object({ kind: z.literal('store_grace'), connection: StoreConnectionSource }),
]);
export type AuditSource = z.infer<typeof AuditSource>;

export const AuditEntry = z.object({
  id: z.string(),
  at: Timestamp,
  /** The admin who made it; null when a store made it (`source`). */
  admin: AdminRef.nullable(),
  source: AuditSource,
  /**
   * The operation id of the route that made the change (`updateLicense`); for a store's change,
   * of the route that makes the same change.
   */
  action: z.string(),
  /** What was changed: `license:key#…` (a key's fingerprint), `product:12`, `plan:3`, ... */
  target: z.string(),
  /** The fields that changed, as they were; null for a record created. */
  before: Fields,
  /** The fields that changed, as they are; null for a record removed. */
  after: Fields,
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export const AuditPage = z.object({
  entries: z.array(AuditEntry),
  page: z.number().int().positive(),
  per_page: z.number().int().positive(),
  total: z.number().int().nonnegative(),
});
export type AuditPage = z.infer<typeof AuditPage>;
