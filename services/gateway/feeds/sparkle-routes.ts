import { z } from 'zod';
import { IdText } from '../../../libs/contracts/index.js';
import { feedKeyFields } from './feed-inputs.js';
import { downloadRefusals, feedRoute } from './feed-route.js';

/**
 * Sparkle's appcast: the app's `SUFeedURL` set to `{api_base}/updates/{product_id}/appcast.xml`,
 * with `?license_key=` (Sparkle then fetches each listed file with the key too) or the key in
 * `Authorization: License <key>` from the updater delegate's HTTP headers.
 */
export const sparkleFeedRoute = feedRoute({
  path: '/updates/:product_id/appcast.xml',
  operationId: 'sparkleFeed',
  summary:
    "Sparkle's appcast: the versions offered to the caller on every channel, newest first, each " +
    'with its macOS file, length and EdDSA signature, and its channel when not stable.',
  body: { text: 'application/rss+xml' },
  params: z.object({ product_id: IdText }),
  query: z.object(feedKeyFields),
  request: (params) => ({ format: 'sparkle' as const, product_id: params.product_id }),
  errors: downloadRefusals,
});
