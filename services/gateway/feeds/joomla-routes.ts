import { z } from 'zod';
import { IdText, NonEmptyShortText } from '../../../libs/contracts/index.js';
import type { Route } from '../../../libs/http/index.js';
import { feedKeyFields } from './feed-inputs.js';
import { feedRoute } from './feed-route.js';

const ProductPath = z.object({ product_id: IdText });

const KeyPath = z.object({
  product_id: IdText,
  key: NonEmptyShortText.meta({ description: 'The license key.' }),
});

const XML = { text: 'application/xml' };

const noJoomlaSettings: Route['errors'] = {
  404: {
    codes: ['NOT_FOUND'],
    description: 'No such product, or the product has no Joomla settings.',
  },
};

/**
 * Joomla's update site (docs/updaters/joomla.md): the extension manifest's `<updateservers>`
 * points at `{api_base}/updates/{product_id}/joomla.xml`, and Joomla adds the key it keeps for
 * the site (`<dlid>`) to the download URL.
 */
export const joomlaFeedRoute = feedRoute({
  path: '/updates/:product_id/joomla.xml',
  operationId: 'joomlaFeed',
  summary:
    "Joomla's extension update stream: the newest version of each release channel the caller " +
    'is offered, tagged with its channel, with the download URL (to which Joomla adds `dlid`) ' +
    "and the file's SHA-256 and SHA-512.",
  body: XML,
  params: ProductPath,
  query: z.object(feedKeyFields),
  request: (params) => ({
    format: 'joomla' as const,
    product_id: params.product_id,
    key_in_path: false,
  }),
  errors: noJoomlaSettings,
});

/**
 * Joomla's "Install from URL" reads a URL ending in `.xml` as an update stream and downloads
 * its URL as it is: this stream's path names the key, and its download URL carries it.
 */
export const joomlaKeyFeedRoute = feedRoute({
  path: '/updates/:product_id/joomla/:key.xml',
  operationId: 'joomlaKeyFeed',
  summary:
    "Joomla's update stream of the license the path names, for Joomla's Install from URL: " +
    'its download URL carries the key, which that installer does not add.',
  body: XML,
  params: KeyPath,
  query: z.object(feedKeyFields),
  pathKey: (params) => params.key,
  request: (params) => ({
    format: 'joomla' as const,
    product_id: params.product_id,
    key_in_path: true,
  }),
  errors: noJoomlaSettings,
});

/** Joomla's changelog (the manifest's `<changelogurl>`), the notes of each version offered. */
export const joomlaChangelogRoute = feedRoute({
  path: '/updates/:product_id/changelog.xml',
  operationId: 'joomlaChangelog',
  summary:
    "Joomla's changelog: a `<changelog>` of each version the caller is offered, with its " +
    'release notes, one `<item>` a line.',
  body: XML,
  params: ProductPath,
  query: z.object(feedKeyFields),
  request: (params) => ({
    format: 'joomla-changelog' as const,
    product_id: params.product_id,
  }),
  errors: noJoomlaSettings,
});
