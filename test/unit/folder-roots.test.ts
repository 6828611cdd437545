import { execFileSync } from 'node:child_process';
import { repositoryRoot } from '../support/doc-pages.js';

/**
 * A folder of services/ or libs/ is read by listing it, so its root holds few enough files to
 * take in at a glance: past that, its files go into subfolders named for what each part does
 * (docs/architecture.md, "Folders"). Tracked files are counted, so a scratch file does not count.
 */

/** The most files a folder may hold at its root (its subfolders' files not counted). */
const MAX_ROOT_FILES = 15;

/** Folders that are built or installed, not written: never counted. */
const SKIPPED = /(?:^|\/)(?:node_modules|dist)\//;

/** The folders of `paths` (file paths, `/`-separated) with more than `max` files at their root. */
function crowdedFolders(paths: readonly string[], max = MAX_ROOT_FILES): string[] {
  const counts = new Map<string, number>();
  for (const file of paths) {
    if (SKIPPED.test(file)) continue;
    const folder = file.slice(0, file.lastIndexOf('/') + 1) || './';
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
  }
  return [...counts]
    .filter(([, count]) => count > max)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([folder, count]) => `${folder}: ${count} files`);
}

/** The tracked files under services/ and libs/. */
function trackedFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', 'services', 'libs'], {
    cwd: repositoryRoot,
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  });
  return listed.split('\0').filter((file) => file !== '');
}

describe('Folders: a folder reads like a table of contents', () => {
  test(`no folder of services/ or libs/ holds more than ${MAX_ROOT_FILES} files at its root`, () => {
    const files = trackedFiles();
    expect(files.length).toBeGreaterThan(0);
    expect(crowdedFolders(files)).toEqual([]);
  });

  test('a folder of 16 files is named with its count; of 15, its subfolders not counted, is not', () => {
    const files = (folder: string, count: number) =>
      Array.from({ length: count }, (_, i) => `${folder}/file-${i}.ts`);
    expect(crowdedFolders(files('services/alpha', 16))).toEqual(['services/alpha/: 16 files']);
    expect(crowdedFolders(files('services/alpha', 15))).toEqual([]);
    expect(
      crowdedFolders([...files('services/alpha', 15), ...files('services/alpha/part', 1)]),
    ).toEqual([]);
    expect(crowdedFolders([...files('libs/beta/src', 17), ...files('services/alpha', 16)])).toEqual(
      ['libs/beta/src/: 17 files', 'services/alpha/: 16 files'],
    );
  });

  test('built and installed folders are not counted', () => {
    const files = (folder: string) =>
      Array.from({ length: 20 }, (_, i) => `${folder}/file-${i}.js`);
    expect(crowdedFolders(files('libs/client/dist'))).toEqual([]);
    expect(crowdedFolders(files('libs/client/node_modules/pkg'))).toEqual([]);
  });
});
