import { crc32 } from 'node:zlib';
import {
  releaseChannels,
  type FileArch,
  type FilePlatform,
  type ReleaseChannel,
} from '../../libs/contracts/index.js';

/**
 * Who asks for a release, as the channel and rollout rules see it (docs/updaters.md): the plan
 * whose restricted files count (spec 4.4 rule 4), the channels the caller takes, and the caller's
 * rollout bucket.
 */
export interface ReleaseAudience {
  /** The license's plan when its key covers the product directly; null: all-plans files only. */
  planId: number | null;
  channels: ReadonlySet<ReleaseChannel>;
  /** 0 to 99; null for a caller without a covering key, who gets only fully rolled-out versions. */
  bucket: number | null;
  /**
   * The covering key's live entitlements: a version or file requiring another is not offered
   * (docs/api-decisions.md, "Entitlements"). Empty without a covering key.
   */
  entitlements: ReadonlySet<string>;
  /**
   * The last release day (`Y-m-d`, spec 2.6 `date`) of the versions the caller gets: an expired
   * license its plan keeps (docs/api-decisions.md, "Expiry strategies"). Absent or null: any.
   */
  updatesUntil?: string | null;
}

/** The operating system and processor a desktop updater asks for; null: any file. */
export interface ReleaseTarget {
  platform: FilePlatform;
  arch: FileArch | null;
}

const seenByChannel = new Map<ReleaseChannel, ReadonlySet<ReleaseChannel>>(
  releaseChannels.map((channel) => [
    channel,
    // A caller taking a channel takes every more stable one too, except `dev`, which is a line
    // of its own (nightly builds) rather than a step of stability.
    new Set(
      channel === 'dev'
        ? ['dev']
        : releaseChannels.slice(0, releaseChannels.indexOf(channel) + 1).filter((c) => c !== 'dev'),
    ),
  ]),
);

/** The channels whose versions a caller asking for `channel` is offered. */
export function channelsSeenBy(channel: ReleaseChannel): ReadonlySet<ReleaseChannel> {
  return seenByChannel.get(channel)!;
}

/**
 * A caller's rollout bucket, 0 to 99: `crc32(license_key + ":" + identifier) % 100`, the
 * identifier normalised as spec 2.4 says (empty when none was sent). The same caller always
 * lands in the same bucket, so raising a rollout only ever adds callers.
 */
export function rolloutBucket(licenseKey: string, identifier: string | null): number {
  return crc32(`${licenseKey}:${identifier ?? ''}`) % 100;
}

/**
 * Whether a version rolled out to `rolloutPercent` % is offered to a caller: every bucket below
 * the percentage is in (100 takes all of 0-99, 0 none), and a caller without a bucket only once
 * the version is fully rolled out.
 */
export function isInRollout(rolloutPercent: number, bucket: number | null): boolean {
  return bucket === null ? rolloutPercent >= 100 : bucket < rolloutPercent;
}

/** The audience of a caller: a covering key brings its plan and its bucket (spec 4.4 rule 4). */
export function audienceOf({
  planId,
  channel,
  rollout,
  entitlements = [],
  updatesUntil = null,
}: {
  planId: number | null;
  channel: ReleaseChannel;
  /** The covering key's live entitlements; none without one. */
  entitlements?: readonly string[];
  /** The covering key and its normalised identifier; null without a covering key. */
  rollout: { licenseKey: string; identifier: string | null } | null;
  /** The last release day the caller gets (`ReleaseAudience`); null: any. */
  updatesUntil?: string | null;
}): ReleaseAudience {
  return {
    planId,
    channels: channelsSeenBy(channel),
    bucket: rollout ? rolloutBucket(rollout.licenseKey, rollout.identifier) : null,
    entitlements: new Set(entitlements),
    updatesUntil,
  };
}

/**
 * Whether a file fits the target: a file for any platform fits every one; an architecture-free
 * file fits every processor, and a macOS `universal` file every processor of macOS.
 */
export function fitsTarget(
  file: { platform: FilePlatform | null; arch: FileArch | null },
  target: ReleaseTarget | null,
): boolean {
  if (!target) return true;
  if (file.platform !== null && file.platform !== target.platform) return false;
  if (file.arch === null || target.arch === null || file.arch === target.arch) return true;
  return file.arch === 'universal' && target.platform === 'darwin';
}

/** How closely a fitting file names the target: the most specific file is preferred. */
export function targetSpecificity(
  file: { platform: FilePlatform | null; arch: FileArch | null },
  target: ReleaseTarget | null,
): number {
  if (!target) return 0;
  return (file.platform === target.platform ? 2 : 0) + (file.arch === target.arch ? 1 : 0);
}
