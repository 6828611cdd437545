import semver from 'semver';
import { z } from 'zod';
import { FileArch, FilePlatform, IdText } from '../../../libs/contracts/index.js';
import { feedKeyFields } from './feed-inputs.js';
import { downloadRefusals, feedRoute } from './feed-route.js';

const TauriPath = z.object({
  product_id: IdText,
  target: FilePlatform.meta({ description: "Tauri's `{{target}}`: linux, windows or darwin." }),
  arch: FileArch.meta({ description: "Tauri's `{{arch}}`: x86_64, aarch64, i686 or armv7." }),
  current_version: z
    .string()
    .refine((value) => semver.valid(value) !== null, { message: 'must be a semantic version' })
    .meta({ description: "Tauri's `{{current_version}}`, the app's version." }),
});

/** What Tauri's updater reads of a dynamic update server's answer. */
const TauriUpdate = z.strictObject({
  version: z.string(),
  notes: z.string(),
  pub_date: z.string().meta({ description: 'RFC 3339.' }),
  url: z.url(),
  signature: z.string().meta({ description: "The file's `.sig`, as uploaded." }),
});

/**
 * Tauri's updater: `endpoints` set to
 * `{api_base}/updates/{product_id}/tauri/{{target}}/{{arch}}/{{current_version}}`.
 */
export const tauriFeedRoute = feedRoute({
  path: '/updates/:product_id/tauri/:target/:arch/:current_version',
  operationId: 'tauriFeed',
  summary:
    "Tauri's updater: the newest stable version for the target and processor, when newer than " +
    "the app's, with its file's URL and updater signature; 204 when there is none.",
  body: { json: TauriUpdate },
  params: TauriPath,
  query: z.object(feedKeyFields),
  request: (params) => ({
    format: 'tauri' as const,
    product_id: params.product_id,
    platform: params.target,
    arch: params.arch,
    current_version: params.current_version,
  }),
  noContent: 'Nothing newer than the current version is offered to this caller.',
  errors: downloadRefusals,
});
