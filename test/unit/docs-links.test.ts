import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { docPages, repositoryRoot } from '../support/doc-pages.js';

/**
 * A clone alone explains the project: the README and every page under docs/ cite only files of
 * the repository. A relative link must lead to a file that exists, inside the repository; a
 * backticked path starting with `../` must stay inside it; and no page names the contract's file
 * outside the repository (the contract is described in docs/api.md).
 */

const root = repositoryRoot;

/** Text that names a file outside the repository, whatever the path around it. */
const OUTSIDE_NAMES = ['../shared/', 'licensing-interface.md'];

/** What a Markdown file at `file` (relative to `repoRoot`) cites outside the repository or in vain. */
export function badCitations(repoRoot: string, file: string, text: string): string[] {
  const folder = path.dirname(path.join(repoRoot, file));
  const inside = (target: string) => {
    const relative = path.relative(repoRoot, path.resolve(folder, target));
    return relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
  };
  const problems: string[] = [];
  text.split('\n').forEach((line, index) => {
    const at = `${file}:${index + 1}`;
    for (const name of OUTSIDE_NAMES) {
      if (line.includes(name)) problems.push(`${at}: names ${name}`);
    }
    for (const [, target] of line.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target!) || target!.startsWith('#')) continue;
      const filePart = decodeURIComponent(target!.split('#')[0]!);
      if (!inside(filePart)) problems.push(`${at}: links outside the repository: ${target}`);
      else if (!existsSync(path.resolve(folder, filePart))) {
        problems.push(`${at}: links to a file that does not exist: ${target}`);
      }
    }
    for (const [, cited] of line.matchAll(/`(\.\.\/[^`\s]*)`/g)) {
      if (!inside(cited!)) problems.push(`${at}: cites a path outside the repository: ${cited}`);
    }
  });
  return problems;
}

describe('README and docs cite only what a clone holds', () => {
  test('no page links to, or names, a path outside the repository, and every link resolves', () => {
    const problems = docPages().flatMap((file) =>
      badCitations(root, file, readFileSync(path.join(root, file), 'utf8')),
    );
    expect(problems).toEqual([]);
  });

  test('the check catches a path outside the repository and a link to nothing', () => {
    const check = (file: string, text: string) => badCitations(root, file, text);
    expect(check('README.md', 'See [docs](docs/api.md) and [a](#walk-through).')).toEqual([]);
    expect(
      check('docs/api.md', '[x](../README.md#tests), `../libs/client`, [w](https://x.y)'),
    ).toEqual([]);
    expect(check('README.md', '[spec](../shared/spec/contract.md)')).toEqual([
      'README.md:1: names ../shared/',
      'README.md:1: links outside the repository: ../shared/spec/contract.md',
    ]);
    expect(check('docs/api.md', 'The contract, `../../elsewhere/contract.md`.')).toEqual([
      'docs/api.md:1: cites a path outside the repository: ../../elsewhere/contract.md',
    ]);
    expect(check('README.md', 'It is licensing-interface.md.')).toEqual([
      'README.md:1: names licensing-interface.md',
    ]);
    expect(check('docs/api.md', '[gone](no-such-page.md)')).toEqual([
      'docs/api.md:1: links to a file that does not exist: no-such-page.md',
    ]);
  });
});
