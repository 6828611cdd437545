import MarkdownIt from 'markdown-it';

/**
 * The one Markdown reader of release notes, which every rendering of them parses with: raw HTML
 * is text (`html: false`), and markdown-it's own check of link targets keeps `javascript:`,
 * `vbscript:`, `file:` and `data:` links from being links. A newline breaks the line, as release
 * notes are written and as most release pages show them. Tables are off: their alignment is a
 * `style` attribute, which the console's CSP refuses and WordPress drops.
 */
export const markdown = new MarkdownIt({ html: false, breaks: true, linkify: false }).disable(
  'table',
);

export type Token = ReturnType<MarkdownIt['parse']>[number];

/** No notes, or only white space. */
export const noNotes = (notes: string | null): notes is null =>
  notes === null || notes.trim() === '';

/** The notes' tokens, as markdown-it reads them. */
export const tokensOf = (notes: string): Token[] => markdown.parse(notes, {});

/** Text for HTML: `&`, `<`, `>` and `"` escaped, for element text and quoted attributes. */
export function escapeHtml(text: string): string {
  return markdown.utils.escapeHtml(text);
}

/** The notes as HTML; empty for none. */
export function releaseNotesHtml(notes: string | null): string {
  return noNotes(notes) ? '' : markdown.render(notes).trim();
}

/**
 * The notes as Joomla's changelog items, each HTML: an item per list item, paragraph or heading,
 * and per line of one; a line break inside a link or an emphasis does not split it, so every
 * item's markup is whole.
 */
export function releaseNotesItems(notes: string | null): string[] {
  if (noNotes(notes)) return [];
  const items: string[] = [];
  for (const token of tokensOf(notes)) {
    if (token.type === 'fence' || token.type === 'code_block') {
      items.push(`<pre><code>${escapeHtml(token.content.replace(/\n$/, ''))}</code></pre>`);
    }
    if (token.type !== 'inline') continue;
    let line: Token[] = [];
    for (const child of [...(token.children ?? []), null]) {
      const breaks = child === null || (child.level === 0 && /^(soft|hard)break$/.test(child.type));
      if (!breaks) {
        line.push(child);
        continue;
      }
      const html = markdown.renderer.renderInline(line, markdown.options, {}).trim();
      if (html !== '') items.push(html);
      line = [];
    }
  }
  return items;
}
