import type { LicenseCoverage } from '../../libs/contracts/index.js';
import {
  chooseRelease,
  downloadRequires,
  downloadUrl,
  planScope,
  releaseDate,
  reportedLicenseState,
} from '../../services/update-catalog/releases.js';
import { audienceOf } from '../../services/update-catalog/audience.js';

const day = (n: number) => new Date(Date.UTC(2026, 0, n));
const version = (id: number, published = true) => ({
  id,
  published,
  channel: 'stable' as const,
  rollout_percent: 100,
});
/** A caller of the stable channel with no rollout bucket: what spec 4.4 alone describes. */
const stableCaller = (planId: number | null) =>
  audienceOf({ planId, channel: 'stable', rollout: null });
/** A file of a version, uploaded on `day` (January 2026). File ids follow upload order. */
const file = (
  id: number,
  versionId: number,
  options: { plan?: number | null; ticked?: boolean; day?: number } = {},
) => ({
  id,
  version_id: versionId,
  plan_id: options.plan ?? null,
  include_in_updates: options.ticked ?? true,
  platform: null,
  arch: null,
  uploaded_at: day(options.day ?? 1),
});

describe('spec 4.4: which version is returned', () => {
  test('1. only published versions count', () => {
    const chosen = chooseRelease({
      versions: [version(1), version(2, false)],
      files: [file(10, 1, { day: 1 }), file(20, 2, { day: 5 })],
      audience: stableCaller(null),
    });
    expect(chosen?.version.id).toBe(1);
  });

  test('2. only ticked files count; a version whose files are all unticked is never offered', () => {
    const chosen = chooseRelease({
      versions: [version(1), version(2)],
      files: [
        file(10, 1, { day: 1 }),
        file(20, 2, { ticked: false, day: 5 }),
        file(21, 2, { ticked: false, day: 5 }),
      ],
      audience: stableCaller(null),
    });
    expect(chosen).toEqual({
      version: expect.objectContaining({ id: 1 }),
      file: expect.objectContaining({ id: 10 }),
      uploadedAt: day(1),
    });
  });

  test('3. the most recently uploaded version wins, in whatever order they are listed', () => {
    const chosen = chooseRelease({
      versions: [version(2), version(1), version(3)],
      files: [file(1, 1, { day: 3 }), file(3, 3, { day: 6 }), file(2, 2, { day: 9 })],
      audience: stableCaller(null),
    });
    expect(chosen?.version.id).toBe(2);
  });

  test('3. a version is as recent as the upload of its file, not as its creation', () => {
    // Version 1 was created first (lower id) but its file was uploaded after version 2's.
    const chosen = chooseRelease({
      versions: [version(1), version(2)],
      files: [file(20, 2, { day: 2 }), file(21, 1, { day: 3 })],
      audience: stableCaller(null),
    });
    expect(chosen).toMatchObject({ version: { id: 1 }, file: { id: 21 }, uploadedAt: day(3) });
  });

  test('3. uploads at the same instant: the later upload (higher file id) wins', () => {
    const chosen = chooseRelease({
      versions: [version(1), version(2)],
      files: [file(30, 2, { day: 4 }), file(31, 1, { day: 4 })],
      audience: stableCaller(null),
    });
    expect(chosen?.version.id).toBe(1);
  });

  test('3. only the files that count for the caller make a version recent', () => {
    // Version 2 was uploaded last, but only as a file of plan 7: other callers get version 1.
    const versions = [version(1), version(2)];
    const files = [file(10, 1, { day: 1 }), file(20, 2, { plan: 7, day: 5 })];
    expect(
      chooseRelease({ versions: versions, files: files, audience: stableCaller(null) }),
    ).toMatchObject({
      version: { id: 1 },
      uploadedAt: day(1),
    });
    expect(
      chooseRelease({ versions: versions, files: files, audience: stableCaller(7) }),
    ).toMatchObject({
      version: { id: 2 },
      uploadedAt: day(5),
    });
    // An unticked file uploaded later makes nothing recent.
    const unticked = [...files, file(30, 1, { ticked: false, day: 9 })];
    expect(
      chooseRelease({ versions: versions, files: unticked, audience: stableCaller(null) })
        ?.uploadedAt,
    ).toEqual(day(1));
  });

  test('4. without a key only all-plans files count', () => {
    const chosen = chooseRelease({
      versions: [version(1), version(2)],
      files: [file(10, 1, { day: 1 }), file(20, 2, { plan: 7, day: 5 })],
      audience: stableCaller(null),
    });
    expect(chosen?.file.id).toBe(10);
  });

  test('4. with a key the plan-specific file is preferred over the all-plans file', () => {
    const files = [file(20, 2), file(21, 2, { plan: 7 }), file(22, 2, { plan: 8 })];
    expect(
      chooseRelease({ versions: [version(2)], files: files, audience: stableCaller(7) })?.file.id,
    ).toBe(21);
    expect(
      chooseRelease({ versions: [version(2)], files: files, audience: stableCaller(9) })?.file.id,
    ).toBe(20);
    // Also when the all-plans file was uploaded after the plan's file.
    const later = [file(23, 2, { plan: 7, day: 1 }), file(24, 2, { day: 2 })];
    expect(
      chooseRelease({ versions: [version(2)], files: later, audience: stableCaller(7) }),
    ).toMatchObject({
      file: { id: 23 },
      uploadedAt: day(2),
    });
  });

  test("4. a newer version with only another plan's file does not count for this caller", () => {
    const chosen = chooseRelease({
      versions: [version(1), version(2)],
      files: [file(10, 1, { day: 1 }), file(20, 2, { plan: 8, day: 5 })],
      audience: stableCaller(7),
    });
    expect(chosen?.version.id).toBe(1);
  });

  test('among several all-plans files of a version, the latest upload is offered', () => {
    const chosen = chooseRelease({
      versions: [version(1)],
      files: [file(10, 1, { day: 1 }), file(11, 1, { day: 3 })],
      audience: stableCaller(null),
    });
    expect(chosen?.file.id).toBe(11);
  });

  test('no published version with a file for the caller gives nothing', () => {
    expect(
      chooseRelease({
        versions: [version(1, false)],
        files: [file(10, 1)],
        audience: stableCaller(null),
      }),
    ).toBeNull();
    expect(
      chooseRelease({ versions: [version(1)], files: [], audience: stableCaller(null) }),
    ).toBeNull();
    expect(chooseRelease({ versions: [], files: [], audience: stableCaller(3) })).toBeNull();
  });
});

/** What `license.coverage` answers for a key covering the product directly, of plan 7. */
const coverage = (overrides: Partial<LicenseCoverage> = {}): LicenseCoverage => ({
  identifier: null,
  found: true,
  covers: true,
  status: 'active',
  plan_id: 7,
  expires_at: '2031-01-01T00:00:00.000Z',
  auto_renew: true,
  next_payment_at: '2030-12-25T00:00:00.000Z',
  identifier_activated: null,
  entitlements: [],
  in_grace: false,
  grace_ends_at: null,
  updates_until: null,
  ...overrides,
});

describe('spec 4.4 rules 4 and 5: the plan a key brings', () => {
  test('4. without a key, only all-plans files', () => {
    expect(planScope(null)).toBeNull();
  });

  test("4. a key covering the product directly brings its plan's files", () => {
    expect(planScope(coverage())).toBe(7);
  });

  test('5. a bundle key (covering, with no plan of its own for the product) sees the all-plans files', () => {
    expect(planScope(coverage({ plan_id: null }))).toBeNull();
  });

  test('an unknown key, or a key for another product, is as good as none (spec 5.2)', () => {
    expect(planScope(coverage({ found: false, covers: false, plan_id: null }))).toBeNull();
    expect(planScope(coverage({ covers: false }))).toBeNull();
  });
});

describe('spec 4.4 rule 6: the license state is reported whatever it is', () => {
  test('a covering key adds its state, renewal data included', () => {
    expect(reportedLicenseState(coverage())).toEqual({
      license_status: 'active',
      license_expires_at: '2031-01-01T00:00:00.000Z',
      auto_renew: true,
      next_payment_at: '2030-12-25T00:00:00.000Z',
    });
  });

  test.each(['expired', 'suspended', 'revoked', 'cancelled'] as const)(
    'a %s license is reported, not refused',
    (status) => {
      expect(reportedLicenseState(coverage({ status }))?.license_status).toBe(status);
    },
  );

  test('no key, an unknown key or a key for another product add nothing', () => {
    expect(reportedLicenseState(null)).toBeNull();
    expect(reportedLicenseState(coverage({ found: false, covers: false }))).toBeNull();
    expect(reportedLicenseState(coverage({ covers: false }))).toBeNull();
  });
});

describe('spec 2.6 fields', () => {
  test('download_url is the download endpoint of the product, null for Account only', () => {
    const base = 'https://shop.example/api/index.php/v1/licensing/downloads';
    expect(downloadUrl({ id: 12, download_access: 'license_key' }, base)).toBe(`${base}/12`);
    expect(downloadUrl({ id: 12, download_access: 'public' }, base)).toBe(`${base}/12`);
    expect(downloadUrl({ id: 12, download_access: 'account' }, base)).toBeNull();
  });

  test('download_requires maps Download API Access', () => {
    expect(downloadRequires('license_key')).toBe('license_key');
    expect(downloadRequires('activated_identifier')).toBe('activated_identifier');
    expect(downloadRequires('account')).toBe('account');
    expect(downloadRequires('public')).toBeNull();
  });

  test('date is the admin-set release date, or the upload date, as Y-m-d (UTC)', () => {
    expect(releaseDate('2025-12-24', day(5))).toBe('2025-12-24');
    expect(releaseDate(null, new Date('2026-03-04T23:59:59Z'))).toBe('2026-03-04');
  });
});
