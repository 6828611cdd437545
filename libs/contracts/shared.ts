import { z } from 'zod';

/** Spec 2.1: the four activation types. */
export const activationTypes = ['domain', 'device', 'seat', 'instance'] as const;
export const ActivationType = z.enum(activationTypes);
export type ActivationType = z.infer<typeof ActivationType>;

/** Spec 3.1: stored license statuses. `invalid` is only ever reported, never stored. */
export const licenseStatuses = ['active', 'expired', 'suspended', 'revoked', 'cancelled'] as const;
export const LicenseStatus = z.enum(licenseStatuses);
export type LicenseStatus = z.infer<typeof LicenseStatus>;

/** Spec 2.7: Download API Access of a product. */
export const downloadAccessValues = [
  'license_key',
  'activated_identifier',
  'account',
  'public',
] as const;
export const DownloadAccess = z.enum(downloadAccessValues);
export type DownloadAccess = z.infer<typeof DownloadAccess>;

/** Spec 2.3 and 8: identifiers, names and keys are at most 255 characters. */
export const MAX_FIELD_LENGTH = 255;

/** Length in characters (code points), not UTF-16 units. */
export function characterLength(value: string): number {
  return Array.from(value).length;
}

/** Paged lists: at most this many entries per page, and pages up to this number. */
export const MAX_PER_PAGE = 500;
export const MAX_PAGE = 10_000;
/** Entries per page of a paged list when the caller does not say. */
export const DEFAULT_PER_PAGE = 50;

export const Id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
export const Timestamp = z.iso.datetime({ offset: true });

/**
 * Text that can be stored as it was sent. JSON can carry an unpaired surrogate (`"\ud800"`), but
 * MongoDB keeps UTF-8, which cannot: it would store U+FFFD, and what was answered would not be
 * what was kept. Every text schema that reaches a store is built on this one refinement.
 */
export function wellFormedString(params?: Parameters<typeof z.string>[0]) {
  return z.string(params).refine((value) => value.isWellFormed(), {
    message: 'must be well-formed Unicode (no unpaired surrogate)',
  });
}

/** Any well-formed text: the base of the text schemas that bound it themselves. */
export const WellFormedText = wellFormedString();

export const ShortText = WellFormedText.refine((v) => characterLength(v) <= MAX_FIELD_LENGTH, {
  message: `must be at most ${MAX_FIELD_LENGTH} characters`,
}).refine((v) => !v.includes('\u0000'), { message: 'must not contain NUL bytes' });
export const NonEmptyShortText = ShortText.refine((v) => v.trim().length > 0, {
  message: 'must not be empty',
});

/**
 * Client IP address of a public API request (spec 2.2 `last_check_ip`, 2.3 IP): an address, or
 * empty when none is known. The gateway only ever passes addresses (services/gateway/requests/client-ip.ts).
 */
export const ClientIp = z.union([z.ipv4(), z.ipv6(), z.literal('')]);

/**
 * Where a list read in batches (an export) goes on: the sort value and the id of the last record
 * read, as the store that answered made them. The next batch starts after it, through the
 * index of the order, however far into the list it is.
 */
export const ListCursor = z.strictObject({
  value: z.union([WellFormedText.max(1024), z.number(), z.null()]),
  id: z.string().regex(/^[0-9a-f]{24}$/),
});
export type ListCursor = z.infer<typeof ListCursor>;

/** How many records one batch of an export holds at most. */
export const MAX_BATCH = 1000;
