/**
 * The release notes as the updaters that show HTML show them, built from the feeds' own renderer
 * (libs/release-notes) as elements: no HTML is set, so whatever the notes hold shows as text, and
 * nothing in them runs or is styled inline (the console's CSP allows neither). A chunk of its own,
 * fetched when the version form is shown: the Markdown reader is not on the console's first load.
 */
import { h, type ComponentChildren } from 'preact';
import { releaseNotesTree, type NotesNode } from '../../../../../libs/release-notes/index.js';

function elements(nodes: readonly NotesNode[]): ComponentChildren[] {
  return nodes.map((node, i) =>
    typeof node === 'string'
      ? node
      : h(node.tag, { key: i, ...node.attrs }, ...elements(node.children)),
  );
}

export function ReleaseNotesPreview({ notes }: { notes: string }) {
  const tree = releaseNotesTree(notes);
  if (tree.length === 0) return <p class="muted">Nothing to preview yet.</p>;
  return <div class="notes-preview-body">{elements(tree)}</div>;
}
