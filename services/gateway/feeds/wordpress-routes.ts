import { z } from 'zod';
import { IdText, ReleaseChannel } from '../../../libs/contracts/index.js';
import { feedKeyFields } from './feed-inputs.js';
import { feedRoute } from './feed-route.js';

/** What plugin-update-checker reads of its metadata URL (its `PluginInfo`). */
const PluginMetadata = z.strictObject({
  name: z.string(),
  slug: z.string(),
  version: z.string(),
  author: z
    .string()
    .optional()
    .meta({ description: "HTML: the seller's name (STORE_NAME); left out when it is not set." }),
  download_url: z
    .url()
    .optional()
    .meta({ description: 'Only when the key may download the file (spec 4.5).' }),
  requires: z.string().optional(),
  tested: z.string().optional(),
  requires_php: z.string().optional(),
  last_updated: z.string().meta({ description: '`Y-m-d H:i:s`, UTC.' }),
  sections: z.strictObject({
    description: z.string().meta({ description: 'HTML.' }),
    changelog: z.string().meta({ description: 'HTML: the release notes, escaped.' }),
  }),
});

/**
 * plugin-update-checker (v5): `PucFactory::buildUpdateChecker` given
 * `{api_base}/updates/{product_id}/wordpress.json?license_key=...`.
 */
export const wordpressFeedRoute = feedRoute({
  path: '/updates/:product_id/wordpress.json',
  operationId: 'wordpressFeed',
  summary:
    "plugin-update-checker's metadata: the newest version for the channel, its changelog and " +
    'WordPress requirements, and its download URL when the key may download it.',
  body: { json: PluginMetadata },
  params: z.object({ product_id: IdText }),
  query: z.object({
    ...feedKeyFields,
    channel: ReleaseChannel.default('stable').meta({
      description: 'The least stable channel taken (stable, rc, beta, alpha, dev).',
    }),
  }),
  request: (params, query, { portal }) => ({
    format: 'wordpress' as const,
    product_id: params.product_id,
    author: portal.store_name,
    channel: query.channel,
  }),
  errors: {
    404: {
      codes: ['NOT_FOUND'],
      description: 'No such product, or no version of it is offered to this caller.',
    },
  },
});
