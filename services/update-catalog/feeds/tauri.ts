import semver from 'semver';
import { LicensingError } from '../../../libs/contracts/index.js';
import { releaseNotesText } from '../../../libs/release-notes/index.js';
import type { RenderedFeed } from './feed-answer.js';
import { releaseFor, type FeedContext } from './feed-context.js';
import { fileUrl } from './links.js';

type TauriRequest = Extract<FeedContext['request'], { format: 'tauri' }>;

/** RFC 3339, as Tauri reads `pub_date`: the release date at midnight UTC, or the upload time. */
function publishedAt(releaseDate: string | null, uploadedAt: Date): string {
  return releaseDate ? `${releaseDate}T00:00:00Z` : uploadedAt.toISOString();
}

/**
 * Tauri's updater (its "dynamic update server"): the newest stable version for the target and
 * processor whose file carries its updater signature, when it is newer (semver) than the
 * caller's; else 204, which Tauri reads as up to date. A caller that may not download gets the
 * refusal of spec 4.5, never an update it cannot install.
 */
export function tauriFeed(context: FeedContext<TauriRequest>): RenderedFeed {
  const { request } = context;
  if (!context.access.ok) throw LicensingError.from(context.access.refusal);
  const signed = {
    ...context,
    releases: {
      ...context.releases,
      files: context.releases.files.filter((file) => file.signature !== null),
    },
  };
  const release = releaseFor(signed, 'stable', { platform: request.platform, arch: request.arch });
  const offered = release && semver.valid(release.version.version);
  if (!release || !offered || !semver.gt(offered, request.current_version)) return { status: 204 };
  return {
    content_type: 'application/json',
    body: JSON.stringify({
      version: release.version.version,
      // Tauri shows its notes as text: the Markdown's words, without its marks.
      notes: releaseNotesText(release.version.release_notes),
      pub_date: publishedAt(release.version.release_date, release.uploadedAt),
      url: fileUrl(context, release, { repeatKey: true }),
      signature: release.file.signature,
    }),
  };
}
