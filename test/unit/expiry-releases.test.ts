import { decideDownloadAccess, type LicenseCoverage } from '../../libs/contracts/index.js';
import { audienceOf } from '../../services/update-catalog/audience.js';
import {
  chooseRelease,
  pinnedRelease,
  releasedBy,
  reportedLicenseState,
  updatesUntilDay,
} from '../../services/update-catalog/releases.js';

/** Expiry strategies (docs/api-decisions.md): the versions a kept expired license gets. */

const day = (n: number) => new Date(Date.UTC(2026, 0, n, 12));
const version = (id: number, release_date: string | null = null) => ({
  id,
  published: true,
  channel: 'stable' as const,
  rollout_percent: 100,
  release_date,
});
const file = (id: number, versionId: number, uploadedOn: number) => ({
  id,
  version_id: versionId,
  plan_id: null,
  include_in_updates: true,
  platform: null,
  arch: null,
  uploaded_at: day(uploadedOn),
});
const caller = (updatesUntil: string | null) =>
  audienceOf({ planId: null, channel: 'stable', rollout: null, updatesUntil });

const coverage = (overrides: Partial<LicenseCoverage> = {}): LicenseCoverage => ({
  found: true,
  covers: true,
  status: 'expired',
  plan_id: 7,
  expires_at: '2026-01-10T00:00:00.000Z',
  auto_renew: false,
  next_payment_at: null,
  identifier_activated: null,
  identifier: null,
  in_grace: false,
  grace_ends_at: null,
  updates_until: '2026-01-10T00:00:00.000Z',
  entitlements: [],
  ...overrides,
});

describe('expiry strategies: releases by the last release day', () => {
  const versions = [version(1), version(2), version(3, '2026-01-09')];

  test('a version counts when released (set date, else upload date) on or before the day', () => {
    expect(releasedBy(version(1), file(10, 1, 10), '2026-01-10')).toBe(true);
    expect(releasedBy(version(1), file(10, 1, 11), '2026-01-10')).toBe(false);
    // Backdated by an admin: its release date counts, not its upload.
    expect(releasedBy(version(1, '2026-01-09'), file(10, 1, 20), '2026-01-10')).toBe(true);
    expect(releasedBy(version(1), file(10, 1, 20), null)).toBe(true);
  });

  test('the newest version released by then wins; a backdated later upload counts', () => {
    const files = [file(10, 1, 5), file(20, 2, 15)];
    expect(chooseRelease({ versions, files, audience: caller('2026-01-10') })?.version.id).toBe(1);
    expect(chooseRelease({ versions, files, audience: caller(null) })?.version.id).toBe(2);
    const backdated = [...files, file(30, 3, 20)];
    expect(
      chooseRelease({ versions, files: backdated, audience: caller('2026-01-10') })?.version.id,
    ).toBe(3);
  });

  test('a pinned file of a later version is not served to a limited caller', () => {
    const files = [file(10, 1, 5), file(20, 2, 15)];
    const pin = (fileId: number, updatesUntil: string | null) =>
      pinnedRelease({ versions, files, fileId, planId: null, updatesUntil });
    expect(pin(20, '2026-01-10')).toBeNull();
    expect(pin(10, '2026-01-10')?.version.id).toBe(1);
    expect(pin(20, null)?.version.id).toBe(2);
  });

  test('the limit is the coverage’s updates_until day, for a covering key only', () => {
    expect(updatesUntilDay(coverage())).toBe('2026-01-10');
    expect(updatesUntilDay(coverage({ updates_until: null }))).toBeNull();
    expect(updatesUntilDay(coverage({ covers: false }))).toBeNull();
    expect(updatesUntilDay(null)).toBeNull();
  });

  test('the update check adds grace and updates_until only where they apply', () => {
    const plain = coverage({ status: 'active', updates_until: null });
    expect(reportedLicenseState(plain)).toEqual({
      license_status: 'active',
      license_expires_at: '2026-01-10T00:00:00.000Z',
      auto_renew: false,
      next_payment_at: null,
    });
    const grace = coverage({
      status: 'active',
      updates_until: null,
      in_grace: true,
      grace_ends_at: '2026-01-17T00:00:00.000Z',
    });
    expect(reportedLicenseState(grace)).toMatchObject({
      in_grace: true,
      grace_ends_at: '2026-01-17T00:00:00.000Z',
    });
    expect(reportedLicenseState(coverage())).toMatchObject({
      updates_until: '2026-01-10T00:00:00.000Z',
    });
  });
});

describe('expiry strategies: download access (spec 4.5 on revoke)', () => {
  const decide = (c: LicenseCoverage) =>
    decideDownloadAccess({
      access: 'license_key',
      keySent: true,
      identifierSent: false,
      coverage: c,
    });

  test('an expired license is refused LICENSE_EXPIRED unless its plan keeps it', () => {
    expect(decide(coverage({ updates_until: null }))).toMatchObject({
      ok: false,
      refusal: { code: 'LICENSE_EXPIRED' },
    });
    expect(decide(coverage())).toEqual({
      ok: true,
      planId: 7,
      updatesUntil: '2026-01-10T00:00:00.000Z',
    });
    expect(decide(coverage({ status: 'active', updates_until: null }))).toEqual({
      ok: true,
      planId: 7,
      updatesUntil: null,
    });
  });
});
