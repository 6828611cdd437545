import { readdirSync } from 'node:fs';
import path from 'node:path';

/** The repository's root, where the README and docs/ are. */
export const repositoryRoot = path.resolve(import.meta.dirname, '..', '..');

/** The pages a reader of a clone reads: the README and every page under docs/, relative paths. */
export function docPages(): string[] {
  const docs = readdirSync(path.join(repositoryRoot, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.md'))
    .map((name) => path.join('docs', name));
  return ['README.md', ...docs.sort()];
}
