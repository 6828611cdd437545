import { noNotes, tokensOf, type Token } from './markdown.js';

/** An inline token's words: a link's address after its text, an image's description. */
function inlineText(children: readonly Token[]): string {
  let text = '';
  const links: string[] = [];
  for (const child of children) {
    if (child.type === 'text' || child.type === 'code_inline') text += child.content;
    else if (child.type === 'softbreak' || child.type === 'hardbreak') text += '\n';
    else if (child.type === 'image') text += child.content;
    else if (child.type === 'link_open') links.push(child.attrGet('href') ?? '');
    else if (child.type === 'link_close') {
      const href = links.pop() ?? '';
      if (href !== '' && !text.endsWith(href)) text += ` (${href})`;
    }
  }
  return text;
}

/**
 * The notes as plain text, for updaters that show text: the Markdown's words without its marks,
 * a list item on a line of its own with `-` or its number, a link's address after its text, a
 * quote's lines after `>`, paragraphs apart by a blank line. Empty for none.
 */
export function releaseNotesText(notes: string | null): string {
  if (noNotes(notes)) return '';
  const blocks: Array<{ text: string; inList: boolean }> = [];
  // Each open list: the number of its next item (null: bullets), and its items' hanging indent.
  const lists: Array<{ next: number | null; hanging: string }> = [];
  let marker: string | null = null;
  let quoted = 0;
  const add = (text: string) => {
    const outer = lists
      .slice(0, -1)
      .map((list) => list.hanging)
      .join('');
    const hanging = lists.at(-1)?.hanging ?? '';
    const lines = text
      .split('\n')
      .map(
        (line, i) => '> '.repeat(quoted) + outer + (i === 0 ? (marker ?? hanging) : hanging) + line,
      );
    blocks.push({ text: lines.join('\n').replace(/[ \t]+$/gm, ''), inList: lists.length > 0 });
    marker = null;
  };
  for (const token of tokensOf(notes)) {
    if (token.type === 'bullet_list_open') lists.push({ next: null, hanging: '' });
    else if (token.type === 'ordered_list_open') {
      lists.push({ next: Number(token.attrGet('start') ?? 1), hanging: '' });
    } else if (token.type === 'bullet_list_close' || token.type === 'ordered_list_close') {
      lists.pop();
    } else if (token.type === 'list_item_open') {
      const list = lists.at(-1)!;
      marker = list.next === null ? '- ' : `${list.next++}. `;
      list.hanging = ' '.repeat(marker.length);
    } else if (token.type === 'blockquote_open') quoted += 1;
    else if (token.type === 'blockquote_close') quoted -= 1;
    else if (token.type === 'inline') add(inlineText(token.children ?? []));
    else if (token.type === 'fence' || token.type === 'code_block') {
      add(token.content.replace(/\n$/, ''));
    } else if (token.type === 'hr') add('---');
  }
  return blocks
    .map(
      (block, i) =>
        (i === 0 ? '' : block.inList && blocks[i - 1]!.inList ? '\n' : '\n\n') + block.text,
    )
    .join('');
}
