import {
  decideDownloadAccess,
  releaseChannels,
  type AccessDecision,
  type FeedRequest,
  type LicenseCoverage,
  type ReleaseChannel,
} from '../../../libs/contracts/index.js';
import { audienceOf, type ReleaseTarget } from '../audience.js';
import type { ProductReleases } from '../release-catalog.js';
import {
  chooseRelease,
  planScope,
  entitlementScope,
  reportedLicenseState,
  updatesUntilDay,
  type Release,
  type ReportedLicenseState,
} from '../releases.js';
import type { PackageFileRecord, ProductRecord, VersionRecord } from '../stores.js';

export type CatalogRelease = Release<VersionRecord, PackageFileRecord>;

/**
 * What a feed is rendered from: the request, the product and its releases as the catalog keeps
 * them, and what the caller's key brings (spec 4.4 rules 4-6, the rollout bucket, and whether it
 * may download the files listed, spec 4.5).
 */
export interface FeedContext<R extends FeedRequest = FeedRequest> {
  request: R;
  product: ProductRecord;
  releases: ProductReleases;
  coverage: LicenseCoverage | null;
  /** The license state the JSON update check adds for a covering key (spec 2.6). */
  licenseState: ReportedLicenseState | null;
  /** Spec 4.5 for this caller: whether the files a feed lists would be served to it. */
  access: AccessDecision;
}

export function feedContext<R extends FeedRequest>(
  request: R,
  releases: ProductReleases,
  coverage: LicenseCoverage | null,
): FeedContext<R> {
  return {
    request,
    product: releases.product,
    releases,
    coverage,
    licenseState: reportedLicenseState(coverage),
    access: decideDownloadAccess({
      access: releases.product.download_access,
      keySent: request.license_key !== null,
      identifierSent: request.identifier !== null,
      coverage,
    }),
  };
}

/** The rollout caller: a covering key and its normalised identifier; none for any other key. */
function rolloutOf({ request, coverage }: FeedContext) {
  return request.license_key !== null && coverage?.covers
    ? { licenseKey: request.license_key, identifier: coverage.identifier }
    : null;
}

/** The release a caller taking `channel` gets (spec 4.4 rules, channels and rollouts). */
export function releaseFor(
  context: FeedContext,
  channel: ReleaseChannel,
  target: ReleaseTarget | null = null,
): CatalogRelease | null {
  const { versions, files } = context.releases;
  const audience = audienceOf({
    planId: planScope(context.coverage),
    entitlements: entitlementScope(context.coverage),
    updatesUntil: updatesUntilDay(context.coverage),
    channel,
    rollout: rolloutOf(context),
  });
  return chooseRelease({ versions, files, audience, target });
}

/**
 * The newest release of each channel, on its own (not the more stable ones it also takes), for
 * feeds that tag each entry with its channel and let the updater choose (Joomla's `<tag>`,
 * Sparkle's `sparkle:channel`). Newest first; a channel with nothing for the caller is left out.
 */
export function newestOfEachChannel(
  context: FeedContext,
  channels: readonly ReleaseChannel[],
  target: ReleaseTarget | null = null,
): Array<{ channel: ReleaseChannel; release: CatalogRelease }> {
  const { versions, files } = context.releases;
  const base = audienceOf({
    planId: planScope(context.coverage),
    entitlements: entitlementScope(context.coverage),
    updatesUntil: updatesUntilDay(context.coverage),
    channel: 'stable',
    rollout: rolloutOf(context),
  });
  const found: Array<{ channel: ReleaseChannel; release: CatalogRelease }> = [];
  for (const channel of channels) {
    const release = chooseRelease({
      versions,
      files,
      audience: { ...base, channels: new Set([channel]) },
      target,
    });
    if (release) found.push({ channel, release });
  }
  return found.sort((a, b) => b.release.uploadedAt.getTime() - a.release.uploadedAt.getTime());
}

/**
 * Every version offered to the caller in any channel, each with the file it would get for the
 * target, newest first, at most `limit`: what a changelog or an appcast lists (spec 4.4's rules
 * and the rollouts, as `releaseFor`).
 */
export function offeredReleases(
  context: FeedContext,
  target: ReleaseTarget | null = null,
  limit = Number.POSITIVE_INFINITY,
): CatalogRelease[] {
  const { versions, files } = context.releases;
  const audience = {
    ...audienceOf({
      planId: planScope(context.coverage),
      entitlements: entitlementScope(context.coverage),
      updatesUntil: updatesUntilDay(context.coverage),
      channel: 'stable',
      rollout: rolloutOf(context),
    }),
    channels: new Set(releaseChannels),
  };
  const filesOf = new Map<number, CatalogRelease['file'][]>();
  for (const file of files) {
    const ofVersion = filesOf.get(file.version_id);
    if (ofVersion) ofVersion.push(file);
    else filesOf.set(file.version_id, [file]);
  }
  const offered: CatalogRelease[] = [];
  for (const version of versions) {
    const release = chooseRelease({
      versions: [version],
      files: filesOf.get(version.id) ?? [],
      audience,
      target,
    });
    if (release) offered.push(release);
  }
  return offered.sort((a, b) => b.uploadedAt.getTime() - a.uploadedAt.getTime()).slice(0, limit);
}
