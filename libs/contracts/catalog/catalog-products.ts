/** The update catalog's products and bundles (spec 2.2), and the event of a change to one. */
import { z } from 'zod';
import { DownloadAccess, Id, NonEmptyShortText, Timestamp } from '../shared.js';
import { JoomlaSettings, WordPressSettings } from './updaters.js';

/**
 * The plan a product's trials are issued on (docs/api-decisions.md, "Trials"): plans are not tied
 * to products, so the product names it; null, the product offers no trial.
 */
export const TrialPlanId = Id.nullable().meta({
  description:
    'The plan trials of this product are issued on (POST {api_base}/trials); null: no trial. A ' +
    'plan that does not exist or has no trial_days offers none either.',
});

/** A product of the update catalog. A product with bundle items is a bundle (spec 2.2). */
export const Product = z.object({
  id: Id,
  title: z.string(),
  requires_license: z.boolean(),
  download_access: DownloadAccess,
  bundle_items: z.array(Id),
  /** What a Joomla update stream repeats (null: the product has no Joomla feed). */
  joomla: JoomlaSettings.nullable(),
  /** What a WordPress plugin's updater reads (null: the plugin's slug is the product id). */
  wordpress: WordPressSettings.nullable(),
  trial_plan_id: TrialPlanId,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Product = z.infer<typeof Product>;

export const CreateProductRequest = z.strictObject({
  id: Id.optional(),
  title: NonEmptyShortText,
  requires_license: z.boolean().default(true),
  download_access: DownloadAccess.default('license_key'),
  bundle_items: z.array(Id).max(1000).default([]),
  joomla: JoomlaSettings.nullable().default(null),
  wordpress: WordPressSettings.nullable().default(null),
  trial_plan_id: TrialPlanId.default(null),
});
export type CreateProductRequest = z.infer<typeof CreateProductRequest>;

export const UpdateProductRequest = z.strictObject({
  id: Id,
  title: NonEmptyShortText.optional(),
  requires_license: z.boolean().optional(),
  download_access: DownloadAccess.optional(),
  bundle_items: z.array(Id).max(1000).optional(),
  /** Replaces the settings whole; null removes them. */
  joomla: JoomlaSettings.nullable().optional(),
  wordpress: WordPressSettings.nullable().optional(),
  trial_plan_id: TrialPlanId.optional(),
});
export type UpdateProductRequest = z.infer<typeof UpdateProductRequest>;

export const ProductRef = z.strictObject({ id: Id });
export const ProductList = z.object({ products: z.array(Product) });

/**
 * Broadcast when a product, or one of its versions or files, changes: every cache of what the
 * catalog says of that product (title, bundle, access rule, releases) drops it.
 */
export const ProductChangedEvent = z.object({ id: Id });
