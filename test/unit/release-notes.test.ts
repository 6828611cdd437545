import {
  releaseNotesHtml,
  releaseNotesText,
  releaseNotesTree,
} from '../../libs/release-notes/index.js';

/**
 * Release notes are Markdown (docs/updaters.md, "What every feed has in common"): HTML for the
 * updaters that show HTML, text for those that show text, and the preview's tree of the same.
 */

describe('release notes as HTML', () => {
  test('Markdown is rendered; raw HTML is escaped; a javascript: link is no link; a newline breaks the line', () => {
    expect(
      releaseNotesHtml(
        '**Bold** <script>alert(1)</script>\n[x](javascript:alert(1)) [y](https://e.example)',
      ),
    ).toBe(
      '<p><strong>Bold</strong> &lt;script&gt;alert(1)&lt;/script&gt;<br>\n' +
        '[x](javascript:alert(1)) <a href="https://e.example">y</a></p>',
    );
    expect(releaseNotesHtml(null)).toBe('');
    expect(releaseNotesHtml('  \n ')).toBe('');
  });

  test('a table is text: its alignment would be an inline style', () => {
    expect(releaseNotesHtml('| a |\n|:-|\n| 1 |')).not.toMatch(/<table|style=/);
  });
});

describe('release notes as text', () => {
  test("the Markdown's words without its marks: list items on their lines, a link's address after its text", () => {
    const markdown =
      '## 2.0\n\nFaster **start**, see [the notes](https://e.example/n) or <https://e.example>.\n\n' +
      '- One\n- Two\n  1. nested\n\n> quoted\n\n```\ncode <x>\n```';
    expect(releaseNotesText(markdown)).toBe(
      '2.0\n\nFaster start, see the notes (https://e.example/n) or https://e.example.\n\n' +
        '- One\n- Two\n  1. nested\n\n> quoted\n\ncode <x>',
    );
    expect(releaseNotesText(null)).toBe('');
  });
});

describe("release notes as the preview's tree", () => {
  test('elements and text from the same tokens, raw HTML as text, no javascript: link', () => {
    expect(
      releaseNotesTree('- **Bold** <b>x</b>\n- [t](javascript:x) [d](https://e.example)'),
    ).toEqual([
      {
        tag: 'ul',
        attrs: {},
        children: [
          {
            tag: 'li',
            attrs: {},
            children: [{ tag: 'strong', attrs: {}, children: ['Bold'] }, ' <b>x</b>'],
          },
          {
            tag: 'li',
            attrs: {},
            children: [
              '[t](javascript:x) ',
              { tag: 'a', attrs: { href: 'https://e.example' }, children: ['d'] },
            ],
          },
        ],
      },
    ]);
    expect(releaseNotesTree(null)).toEqual([]);
  });
});
