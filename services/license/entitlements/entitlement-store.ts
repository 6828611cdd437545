import type { EntitlementRecord, LicenseEntitlementRecord } from '../records.js';

/**
 * The entitlements an admin defines, by their unique code, and those licenses carry beyond their
 * plan's (docs/api-decisions.md, "Entitlements"): kept beside the licenses, not in their records,
 * and read with a license where an answer lists them. Records returned are copies.
 */
export interface EntitlementStore {
  /** A code already defined creates nothing. */
  create(creation: {
    entitlement: Omit<EntitlementRecord, 'created_at'>;
    now: Date;
  }): Promise<{ outcome: 'created'; entitlement: EntitlementRecord } | { outcome: 'code-taken' }>;

  find(code: string): Promise<EntitlementRecord | null>;

  /** Every entitlement, by code. */
  list(): Promise<EntitlementRecord[]>;

  /** Of `codes`, those that are defined. */
  defined(codes: readonly string[]): Promise<string[]>;

  /** The entitlement renamed, or null when unknown. */
  rename(rename: { code: string; name: string }): Promise<EntitlementRecord | null>;

  /** The entitlement removed, or null when unknown. */
  remove(code: string): Promise<EntitlementRecord | null>;

  /** How many licenses carry the code (expired ones included: they are still listed). */
  licensesWith(code: string): Promise<number>;

  /** Grants a license the code until `expiresAt`; a grant it already has takes the new expiry. */
  grant(grant: {
    licenseKey: string;
    code: string;
    expiresAt: Date | null;
    now: Date;
  }): Promise<LicenseEntitlementRecord>;

  /** Whether the license carried the code, which it no longer does. */
  revoke(revocation: { licenseKey: string; code: string }): Promise<boolean>;

  /** The entitlements a license carries, by code. */
  forLicense(licenseKey: string): Promise<LicenseEntitlementRecord[]>;
}
