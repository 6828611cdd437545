import { readFileSync } from 'node:fs';
import path from 'node:path';
import { docPages, repositoryRoot } from '../support/doc-pages.js';

/**
 * The docs are read by people, so a table is for short cells: a paragraph inside a cell cannot
 * be scanned. (Line lengths of prose are markdownlint's, in `npm run lint`.)
 */

const root = repositoryRoot;

/** The longest a table cell may be, in characters. */
const MAX_CELL = 220;

/** The cells of a Markdown text's table rows over `MAX_CELL`, as `line: length`. */
export function longCells(text: string): string[] {
  const problems: string[] = [];
  let fenced = false;
  text.split('\n').forEach((line, index) => {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced || !line.trimStart().startsWith('|')) return;
    const cells = line
      .trim()
      .replace(/^\||\|$/g, '')
      .split(/(?<!\\)\|/)
      .map((cell) => cell.trim());
    for (const cell of cells) {
      if (cell.length > MAX_CELL) problems.push(`${index + 1}: ${cell.length}`);
    }
  });
  return problems;
}

describe('the docs hold short table cells', () => {
  test(`no table cell of the README or docs/ is over ${MAX_CELL} characters`, () => {
    const problems = docPages().flatMap((file) =>
      longCells(readFileSync(path.join(root, file), 'utf8')).map((at) => `${file}:${at}`),
    );
    expect(problems).toEqual([]);
  });

  test('a long cell is found, in any column; code blocks and short cells are not', () => {
    const long = 'x'.repeat(MAX_CELL + 1);
    expect(longCells(`| a | b |\n|---|---|\n| c | ${long} |\n`)).toEqual([`3: ${MAX_CELL + 1}`]);
    expect(longCells(`| ${long} |\n`)).toEqual([`1: ${MAX_CELL + 1}`]);
    expect(longCells(`\`\`\`text\n| ${long} |\n\`\`\`\n`)).toEqual([]);
    expect(longCells(`| ${'y'.repeat(MAX_CELL)} | \\| |\n`)).toEqual([]);
  });
});
