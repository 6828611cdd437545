import { readFileSync } from 'node:fs';

/**
 * A clone followed by the README's set-up leaves `git status` clean. `npm ci` never writes the
 * lock; `npm install` adds every optional package of another platform the lock leaves out (the
 * native builds of @swc/core, esbuild, rollup, ...), so the lock must already list them all.
 */
interface LockEntry {
  optionalDependencies?: Record<string, string>;
}

const lock = JSON.parse(
  readFileSync(new URL('../../package-lock.json', import.meta.url), 'utf8'),
) as {
  lockfileVersion: number;
  packages: Record<string, LockEntry>;
};

/** Where npm would find `name` from the package at `location`: its own node_modules, then up. */
function resolves(location: string, name: string): boolean {
  let from = location;
  for (;;) {
    if (lock.packages[`${from === '' ? '' : `${from}/`}node_modules/${name}`]) return true;
    if (from === '') return false;
    const cut = from.lastIndexOf('/node_modules/');
    from = cut === -1 ? '' : from.slice(0, cut);
  }
}

describe('package-lock.json', () => {
  test('lists the optional packages of every platform, so npm install adds none', () => {
    expect(lock.lockfileVersion).toBe(3);
    const missing = Object.entries(lock.packages).flatMap(([location, entry]) =>
      Object.keys(entry.optionalDependencies ?? {})
        .filter((name) => !resolves(location, name))
        .map((name) => `${location || '(root)'} -> ${name}`),
    );
    expect(missing).toEqual([]);
  });
});
