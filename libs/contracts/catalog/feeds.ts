import { z } from 'zod';
import { Id, NonEmptyShortText, ShortText } from '../shared.js';
import { FileArch, FilePlatform, ReleaseChannel } from './updaters.js';

/**
 * The update feeds of the updaters sellers already ship (docs/updaters.md): the gateway parses
 * each feed's request, the update catalog answers it from its in-memory catalog, rendered in the
 * updater's own format.
 */

/** Who asks for a feed, and where its answer's links point. */
const FeedCaller = {
  product_id: Id,
  license_key: NonEmptyShortText.nullable(),
  /** As sent: the catalog has it normalised for the license (spec 2.4) before it is used. */
  identifier: ShortText.nullable(),
  /**
   * The key came in the feed's query: links the feed lists repeat it (and the identifier), for
   * updaters that fetch a listed URL as it is. A key sent in a header is never written out.
   */
  key_in_query: z.boolean(),
  /** The absolute public URL of `{api_base}`, which every link of the feed starts with. */
  api_url: z.url(),
  /** The caller's If-None-Match: a feed whose ETag it names answers 304, without its body. */
  if_none_match: z.string().max(2048).nullable(),
};

/**
 * The seller's name, as the WordPress updaters' plugin information gives its author: STORE_NAME,
 * which the gateway reads (the catalog keeps no author of a product); null when it is not set.
 */
const Author = { author: ShortText.nullable() };

export const FeedRequest = z.discriminatedUnion('format', [
  /** Joomla's extension update stream: the newest version of each channel. */
  z.strictObject({
    format: z.literal('joomla'),
    ...FeedCaller,
    /**
     * The key came in the stream's path (Joomla's "Install from URL", which adds no `dlid` to
     * the download): the download URL carries it.
     */
    key_in_path: z.boolean(),
  }),
  /** Joomla's changelog of the versions the caller is offered. */
  z.strictObject({ format: z.literal('joomla-changelog'), ...FeedCaller }),
  /** plugin-update-checker's JSON. */
  z.strictObject({
    format: z.literal('wordpress'),
    ...FeedCaller,
    ...Author,
    channel: ReleaseChannel,
  }),
  /** EDD Software Licensing's `get_version` answer. */
  z.strictObject({ format: z.literal('edd'), ...FeedCaller, ...Author, channel: ReleaseChannel }),
  /** electron-updater's channel file. */
  z.strictObject({
    format: z.literal('electron'),
    ...FeedCaller,
    channel: ReleaseChannel,
    platform: FilePlatform,
    arch: FileArch.nullable(),
  }),
  /** Sparkle's appcast: the versions the caller is offered, each with its channel. */
  z.strictObject({ format: z.literal('sparkle'), ...FeedCaller }),
  /** Tauri's updater: the newest version for the target, when newer than the caller's. */
  z.strictObject({
    format: z.literal('tauri'),
    ...FeedCaller,
    platform: FilePlatform,
    arch: FileArch,
    current_version: ShortText,
  }),
]);
export type FeedRequest = z.infer<typeof FeedRequest>;
export type FeedFormat = FeedRequest['format'];

/** A feed: its body, or not modified since the caller's copy, or nothing to offer (Tauri). */
export const FeedAnswer = z.discriminatedUnion('status', [
  z.object({
    status: z.literal(200),
    content_type: z.string(),
    body: z.string(),
    etag: z.string(),
  }),
  z.object({ status: z.literal(304), etag: z.string() }),
  z.object({ status: z.literal(204) }),
]);
export type FeedAnswer = z.infer<typeof FeedAnswer>;
