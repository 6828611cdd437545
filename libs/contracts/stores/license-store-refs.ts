import { z } from 'zod';
import { Id, NonEmptyShortText } from '../shared.js';
import { CreateLicenseRequest } from '../licenses/license-changes.js';
import { LicenseDetail, LicenseStoreRefs } from '../licenses/license-views.js';

// ---- The licenses of store sales (docs/stores.md), asked for by the stores service ----

/** A store sale names its order, its subscription, or both. */
const SaleRefs = LicenseStoreRefs.refine(
  (refs) => refs.order_id !== null || refs.subscription_id !== null,
  { message: 'order_id or subscription_id must be given', path: ['order_id'] },
);

/**
 * A license for a store sale, made once per sale: the fields of an admin's license (active,
 * its key generated) and the sale's ids, by which a license already made is found instead.
 */
export const CreateStoreLicenseRequest = CreateLicenseRequest.omit({
  license_key: true,
  status: true,
}).extend({ store: SaleRefs });
export type CreateStoreLicenseRequest = z.infer<typeof CreateStoreLicenseRequest>;

/** The sale's license, and whether this call made it (false: it existed already). */
export const StoreLicense = z.object({ created: z.boolean(), license: LicenseDetail });
export type StoreLicense = z.infer<typeof StoreLicense>;

/** The license of a store sale: by its subscription first, then by its order. */
export const FindStoreLicenseRequest = z.strictObject({
  connection_id: Id,
  order_id: NonEmptyShortText.nullable(),
  subscription_id: NonEmptyShortText.nullable(),
});
export type FindStoreLicenseRequest = z.infer<typeof FindStoreLicenseRequest>;

export const FoundStoreLicense = z.object({ license: LicenseDetail.nullable() });
export type FoundStoreLicense = z.infer<typeof FoundStoreLicense>;
