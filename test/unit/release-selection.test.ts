import {
  chooseRelease,
  downloadRequires,
  releaseDate,
} from '../../services/update-catalog/releases.js';

const day = (n: number) => new Date(Date.UTC(2026, 0, n));
const version = (id: number, uploadedDay: number, published = true) => ({
  id,
  published,
  uploaded_at: day(uploadedDay),
});
const file = (
  id: number,
  versionId: number,
  options: { plan?: number | null; ticked?: boolean; day?: number } = {},
) => ({
  id,
  version_id: versionId,
  plan_id: options.plan ?? null,
  include_in_updates: options.ticked ?? true,
  uploaded_at: day(options.day ?? 1),
});

describe('spec 4.4: which version is returned', () => {
  test('1. only published versions count', () => {
    const chosen = chooseRelease(
      [version(1, 1), version(2, 5, false)],
      [file(10, 1), file(20, 2)],
      null,
    );
    expect(chosen?.version.id).toBe(1);
  });

  test('2. only ticked files count; a version whose files are all unticked is never offered', () => {
    const chosen = chooseRelease(
      [version(1, 1), version(2, 5)],
      [file(10, 1), file(20, 2, { ticked: false }), file(21, 2, { ticked: false })],
      null,
    );
    expect(chosen).toEqual({
      version: expect.objectContaining({ id: 1 }),
      file: expect.objectContaining({ id: 10 }),
    });
  });

  test('3. the most recently uploaded version wins, in whatever order they are listed', () => {
    const chosen = chooseRelease(
      [version(2, 9), version(1, 3), version(3, 6)],
      [file(1, 1), file(2, 2), file(3, 3)],
      null,
    );
    expect(chosen?.version.id).toBe(2);
  });

  test('4. without a key only all-plans files count', () => {
    const chosen = chooseRelease(
      [version(1, 1), version(2, 5)],
      [file(10, 1), file(20, 2, { plan: 7 })],
      null,
    );
    expect(chosen?.file.id).toBe(10);
  });

  test('4. with a key the plan-specific file is preferred over the all-plans file', () => {
    const files = [file(20, 2), file(21, 2, { plan: 7 }), file(22, 2, { plan: 8 })];
    expect(chooseRelease([version(2, 5)], files, 7)?.file.id).toBe(21);
    expect(chooseRelease([version(2, 5)], files, 9)?.file.id).toBe(20);
  });

  test("4. a newer version with only another plan's file does not count for this caller", () => {
    const chosen = chooseRelease(
      [version(1, 1), version(2, 5)],
      [file(10, 1), file(20, 2, { plan: 8 })],
      7,
    );
    expect(chosen?.version.id).toBe(1);
  });

  test('among several all-plans files of a version, the latest upload is offered', () => {
    const chosen = chooseRelease(
      [version(1, 1)],
      [file(10, 1, { day: 1 }), file(11, 1, { day: 3 })],
      null,
    );
    expect(chosen?.file.id).toBe(11);
  });

  test('no published version with a file for the caller gives nothing', () => {
    expect(chooseRelease([version(1, 1, false)], [file(10, 1)], null)).toBeNull();
    expect(chooseRelease([], [], 3)).toBeNull();
  });
});

describe('spec 2.6 fields', () => {
  test('download_requires maps Download API Access', () => {
    expect(downloadRequires('license_key')).toBe('license_key');
    expect(downloadRequires('activated_identifier')).toBe('activated_identifier');
    expect(downloadRequires('account')).toBe('account');
    expect(downloadRequires('public')).toBeNull();
  });

  test('date is the admin-set release date, or the upload date, as Y-m-d', () => {
    expect(releaseDate({ release_date: '2025-12-24', uploaded_at: day(5) })).toBe('2025-12-24');
    expect(releaseDate({ release_date: null, uploaded_at: new Date('2026-03-04T23:59:59Z') })).toBe(
      '2026-03-04',
    );
  });
});
