import semver from 'semver';
import { stringify } from 'yaml';
import { LicensingError, refusal, type Refusal } from '../../../libs/contracts/index.js';
import { fitsTarget, targetSpecificity, type ReleaseTarget } from '../audience.js';
import { entitled, entitlementScope, planScope } from '../releases.js';
import type { PackageFileRecord } from '../stores.js';
import { releaseNotesText } from '../../../libs/release-notes/index.js';
import type { RenderedFeed } from './feed-answer.js';
import { releaseFor, type CatalogRelease, type FeedContext } from './feed-context.js';
import { fileUrlFrom } from './links.js';

type ElectronRequest = Extract<FeedContext['request'], { format: 'electron' }>;

/**
 * The channel file sits at `{api_base}/updates/{id}/electron/<name>.yml`: three levels below
 * `{api_base}`, which the files' relative URLs climb back to.
 */
const CHANNEL_FILE_DEPTH = 3;

/**
 * electron-updater reads a 404 as "no such channel": a key refused with a 404 code of spec 4.5
 * (an identifier not activated) is answered 403, with its code, so the app reports the refusal.
 */
function refusedKey({ code, message, details }: Refusal): LicensingError {
  return new LicensingError(code, message, { details, status: 403 });
}

/** The files of the release's version the caller may take for the target, preferred first. */
function filesOfRelease(
  context: FeedContext,
  files: readonly PackageFileRecord[],
  release: CatalogRelease,
  target: ReleaseTarget,
): PackageFileRecord[] {
  const planId = planScope(context.coverage);
  const entitlements = new Set(entitlementScope(context.coverage));
  const preference = (file: PackageFileRecord) =>
    (planId !== null && file.plan_id === planId ? 4 : 0) + targetSpecificity(file, target);
  return files
    .filter(
      (file) =>
        file.version_id === release.version.id &&
        (file.plan_id === null || file.plan_id === planId) &&
        entitled(file.requires_entitlement, entitlements) &&
        fitsTarget(file, target),
    )
    .sort(
      (a, b) =>
        Number(b.id === release.file.id) - Number(a.id === release.file.id) ||
        preference(b) - preference(a) ||
        a.id - b.id,
    );
}

const base64OfHex = (hex: string) => Buffer.from(hex, 'hex').toString('base64');

/**
 * Every string quoted: electron-updater reads the file with js-yaml's YAML 1.1 schema, which
 * would turn a plain `releaseDate` into a Date and a version such as `1.10` into a number.
 */
const YAML_OPTIONS = { defaultStringType: 'QUOTE_SINGLE', defaultKeyType: 'PLAIN' } as const;

/**
 * electron-updater's channel file (generic provider): the version a caller taking the channel
 * gets for the platform, every file of it for that platform with its SHA-512 (base64) and size,
 * the first as `path`. URLs are relative, so electron-updater resolves them against the feed's
 * URL and repeats the feed's query (the key) on them. Only files with a SHA-512 and versions
 * numbered in semver count: electron-updater checks the one and compares the other. A caller
 * that may not download gets the refusal of spec 4.5 (403), never a version it cannot install;
 * nothing to offer is a 404, which electron-updater reports as the channel file not found.
 */
export function electronFeed(context: FeedContext<ElectronRequest>): RenderedFeed {
  const { request } = context;
  if (!context.access.ok) throw refusedKey(context.access.refusal);
  const files = context.releases.files.filter((file) => file.sha512 !== null);
  const checked = {
    ...context,
    releases: {
      ...context.releases,
      versions: context.releases.versions.filter((v) => semver.valid(v.version) !== null),
      files,
    },
  };
  const target: ReleaseTarget = { platform: request.platform, arch: request.arch };
  const release = releaseFor(checked, request.channel, target);
  if (!release) {
    throw LicensingError.from(
      refusal('NOT_FOUND', `No version of the ${request.channel} channel for this platform.`),
    );
  }
  const listed = filesOfRelease(context, files, release, target).map((file) => ({
    url: fileUrlFrom(CHANNEL_FILE_DEPTH, context, { ...release, file }),
    sha512: base64OfHex(file.sha512!),
    size: file.size,
  }));
  const first = listed[0]!;
  const { release_date } = release.version;
  // The generic provider's notes are text, which the app shows as it likes.
  const releaseNotes = releaseNotesText(release.version.release_notes);
  return {
    content_type: 'text/yaml; charset=utf-8',
    body: stringify(
      {
        version: release.version.version,
        files: listed,
        path: first.url,
        sha512: first.sha512,
        releaseDate: release_date
          ? `${release_date}T00:00:00.000Z`
          : release.uploadedAt.toISOString(),
        ...(releaseNotes === '' ? {} : { releaseNotes }),
      },
      YAML_OPTIONS,
    ),
  };
}
