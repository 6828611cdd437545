import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import {
  audienceOf,
  channelsSeenBy,
  isInRollout,
  rolloutBucket,
} from '../../services/update-catalog/audience.js';
import { chooseRelease } from '../../services/update-catalog/releases.js';
import type { FileArch, FilePlatform, ReleaseChannel } from '../../libs/contracts/index.js';

/**
 * Release channels and staged rollouts (docs/updaters.md): which channels a caller sees, its
 * rollout bucket, and the version it gets when a newer one is not rolled out to it.
 */

const day = (n: number) => new Date(Date.UTC(2026, 0, n));
const version = (id: number, channel: ReleaseChannel = 'stable', rollout_percent = 100) => ({
  id,
  published: true,
  channel,
  rollout_percent,
});
/** A file of version `id` (file id = version id), uploaded on day `id` of January. */
const file = (
  id: number,
  target: { platform?: FilePlatform | null; arch?: FileArch | null } = {},
) => ({
  id,
  version_id: id,
  plan_id: null,
  include_in_updates: true,
  platform: target.platform ?? null,
  arch: target.arch ?? null,
  uploaded_at: day(id),
});
/**
 * `n` keys shaped like the ones the license service generates (32 hex digits), the same on every
 * run: drawn from a hash, so the figures below are exact, never a matter of luck.
 */
const keys = (n: number, prefix = 'KEY') =>
  Array.from({ length: n }, (_, i) =>
    createHash('sha256').update(`${prefix}-${i}`).digest('hex').slice(0, 32),
  );

describe('channels', () => {
  test.each<[ReleaseChannel, ReleaseChannel[]]>([
    ['stable', ['stable']],
    ['rc', ['stable', 'rc']],
    ['beta', ['stable', 'rc', 'beta']],
    ['alpha', ['stable', 'rc', 'beta', 'alpha']],
    ['dev', ['dev']],
  ])('a caller asking for %s sees %j', (channel, seen) => {
    expect([...channelsSeenBy(channel)].sort()).toEqual([...seen].sort());
  });
});

describe('rollout buckets', () => {
  test('a bucket is 0 to 99 and the same caller always lands in the same one', () => {
    for (const key of keys(200)) {
      const bucket = rolloutBucket(key, 'example.com');
      expect(bucket).toBeGreaterThanOrEqual(0);
      expect(bucket).toBeLessThan(100);
      expect(Number.isInteger(bucket)).toBe(true);
      expect(rolloutBucket(key, 'example.com')).toBe(bucket);
    }
  });

  test('the identifier counts: crc32 of key, colon and identifier', () => {
    expect(rolloutBucket('KEY-1', 'a.com')).toBe(crc32('KEY-1:a.com') % 100);
    // An absent identifier is the empty one.
    expect(rolloutBucket('K', null)).toBe(rolloutBucket('K', ''));
    const differing = keys(50).filter((k) => rolloutBucket(k, 'a.com') !== rolloutBucket(k, null));
    expect(differing.length).toBeGreaterThan(40);
  });

  test('0 takes nobody, 100 everybody, and no bucket is left out', () => {
    for (let bucket = 0; bucket < 100; bucket++) {
      expect(isInRollout(0, bucket)).toBe(false);
      expect(isInRollout(100, bucket)).toBe(true);
      // Exactly `percent` buckets are in: every bucket is in from some percentage on.
      expect(isInRollout(bucket + 1, bucket)).toBe(true);
      expect(isInRollout(bucket, bucket)).toBe(false);
    }
    for (let percent = 0; percent <= 100; percent++) {
      const inside = Array.from({ length: 100 }, (_, b) => b).filter((b) =>
        isInRollout(percent, b),
      );
      expect(inside).toHaveLength(percent);
    }
  });

  test('a caller without a key is in only once a version is fully rolled out', () => {
    expect(isInRollout(99, null)).toBe(false);
    expect(isInRollout(100, null)).toBe(true);
  });

  test('every bucket is reached by generated keys', () => {
    const seen = new Set(keys(2_000).map((k) => rolloutBucket(k, null)));
    expect(seen.size).toBe(100);
  });

  test('a rollout at 10 % over 1,000 generated keys lands within 7 to 13 %; answers never flip', () => {
    const all = keys(1_000, 'ROLL');
    const isIn = (key: string) => isInRollout(10, rolloutBucket(key, 'example.com'));
    const first = all.map(isIn);
    const share = first.filter(Boolean).length / all.length;
    expect(share).toBeGreaterThanOrEqual(0.07);
    expect(share).toBeLessThanOrEqual(0.13);
    expect(all.map(isIn)).toEqual(first);
  });

  test('raising a rollout only adds callers', () => {
    const all = keys(500);
    const at = (percent: number) =>
      new Set(all.filter((k) => isInRollout(percent, rolloutBucket(k, null))));
    const ten = at(10);
    const fifty = at(50);
    for (const key of ten) expect(fifty.has(key)).toBe(true);
  });
});

describe('chooseRelease with channels, rollouts and targets', () => {
  const caller = (channel: ReleaseChannel, bucket: number | null, planId: number | null = 1) => ({
    ...audienceOf({ planId, channel, rollout: null }),
    bucket,
  });

  test('a stable caller never gets a beta; a beta caller gets the newest of beta, rc and stable', () => {
    const versions = [version(1), version(2, 'rc'), version(3, 'beta'), version(4, 'dev')];
    const files = [file(1), file(2), file(3), file(4)];
    const chosen = (channel: ReleaseChannel) =>
      chooseRelease({ versions, files, audience: caller(channel, 5) })?.version.id;
    expect(chosen('stable')).toBe(1);
    expect(chosen('rc')).toBe(2);
    expect(chosen('beta')).toBe(3);
    expect(chosen('alpha')).toBe(3);
    expect(chosen('dev')).toBe(4);
  });

  test('a dev caller sees only dev versions: none, when there is no dev build', () => {
    const chosen = chooseRelease({
      versions: [version(1), version(2, 'beta')],
      files: [file(1), file(2)],
      audience: caller('dev', 5),
    });
    expect(chosen).toBeNull();
  });

  test('a caller outside a rollout gets the newest version it is in for', () => {
    const versions = [version(1), version(2, 'stable', 50), version(3, 'stable', 10)];
    const files = [file(1), file(2), file(3)];
    const chosen = (bucket: number | null) =>
      chooseRelease({ versions, files, audience: caller('stable', bucket) })?.version.id;
    expect(chosen(0)).toBe(3);
    expect(chosen(9)).toBe(3);
    expect(chosen(10)).toBe(2);
    expect(chosen(49)).toBe(2);
    expect(chosen(50)).toBe(1);
    expect(chosen(99)).toBe(1);
  });

  test('without a key only fully rolled-out versions count', () => {
    const chosen = chooseRelease({
      versions: [version(1), version(2, 'stable', 99)],
      files: [file(1), file(2)],
      audience: caller('stable', null, null),
    });
    expect(chosen?.version.id).toBe(1);
  });

  test('a version at 0 % is offered to nobody', () => {
    const versions = [version(1), version(2, 'stable', 0)];
    for (let bucket = 0; bucket < 100; bucket++) {
      const chosen = chooseRelease({
        versions,
        files: [file(1), file(2)],
        audience: caller('stable', bucket),
      });
      expect(chosen?.version.id).toBe(1);
    }
  });

  test('a target: the newest version with a fitting file in the rollout', () => {
    const versions = [version(1), version(2), version(3, 'stable', 10)];
    const files = [
      file(1, { platform: 'windows', arch: 'x86_64' }),
      file(2, { platform: 'linux', arch: 'x86_64' }),
      file(3, { platform: 'windows', arch: 'x86_64' }),
    ];
    const windows = { platform: 'windows' as const, arch: 'x86_64' as const };
    const chosen = (bucket: number) =>
      chooseRelease({ versions, files, audience: caller('stable', bucket), target: windows })
        ?.version.id;
    expect(chosen(3)).toBe(3);
    // Outside the rollout of 3, and 2 has no Windows file: 1.
    expect(chosen(50)).toBe(1);
  });
});
