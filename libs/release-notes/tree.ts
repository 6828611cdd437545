import { markdown, noNotes, tokensOf, type Token } from './markdown.js';

/**
 * The notes as elements and text, for a page that builds its elements itself (the console's
 * preview): it never sets HTML, so its text is text whatever it holds. The tree has what the
 * HTML of the feeds has, from the same tokens: only these elements and these attributes.
 */
const ELEMENTS = new Set([
  'a',
  'blockquote',
  'br',
  'code',
  'em',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'img',
  'li',
  'ol',
  'p',
  'pre',
  's',
  'strong',
  'ul',
]);
const ATTRIBUTES = new Set(['href', 'src', 'alt', 'title', 'start']);

export interface NotesElement {
  tag: string;
  attrs: Record<string, string>;
  children: NotesNode[];
}
export type NotesNode = string | NotesElement;

function element(tag: string, token: Token | null, children: NotesNode[] = []): NotesElement {
  const attrs: Record<string, string> = {};
  for (const [name, value] of token?.attrs ?? []) if (ATTRIBUTES.has(name)) attrs[name] = value;
  return { tag, attrs, children };
}

/** Appends the tokens' nodes to `root`: an open token starts an element, its close ends it. */
function build(tokens: readonly Token[], root: NotesElement): void {
  const open = [root];
  const add = (node: NotesNode) => open.at(-1)!.children.push(node);
  for (const token of tokens) {
    if (token.hidden) continue; // a tight list's paragraphs: their text goes in the item
    if (token.nesting === 1) {
      const made = element(token.tag, token);
      add(made);
      open.push(made);
    } else if (token.nesting === -1) open.pop();
    else if (token.type === 'inline') build(token.children ?? [], open.at(-1)!);
    else if (token.type === 'text') add(token.content);
    else if (token.type === 'code_inline') add(element('code', null, [token.content]));
    else if (token.type === 'fence' || token.type === 'code_block') {
      add(element('pre', null, [element('code', null, [token.content])]));
    } else if (token.type === 'softbreak' || token.type === 'hardbreak') {
      // A newline breaks the line (`breaks`), as in the HTML.
      add(element('br', null));
    } else if (token.type === 'hr') add(element('hr', token));
    else if (token.type === 'image') {
      const image = element('img', token);
      image.attrs['alt'] = markdown.renderer.renderInlineAsText(token.children ?? [], {}, {});
      add(image);
    }
  }
}

/** Drops what is not one of the elements above, keeping its children in its place. */
function kept(nodes: readonly NotesNode[]): NotesNode[] {
  return nodes.flatMap((node) => {
    if (typeof node === 'string') return node === '' ? [] : [node];
    const children = kept(node.children);
    return ELEMENTS.has(node.tag) ? [{ ...node, children }] : children;
  });
}

/** The notes' elements and text, as the feeds' HTML has them; none for no notes. */
export function releaseNotesTree(notes: string | null): NotesNode[] {
  if (noNotes(notes)) return [];
  const root = element('div', null);
  build(tokensOf(notes), root);
  return kept(root.children);
}
