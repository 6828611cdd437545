/**
 * Release notes are Markdown (docs/updaters.md, "What every feed has in common"). Every feed
 * renders them here, and so does the console's preview, so a seller sees what the updaters show:
 *
 * - HTML, for the formats that show HTML (WordPress's changelog, EDD's, Sparkle's description),
 *   and Joomla's changelog items, the same HTML an item per list item or line (markdown.ts);
 * - plain text, for the formats that show text (Tauri's `notes`, Electron's `releaseNotes`):
 *   the Markdown's words without its marks (text.ts);
 * - a tree of elements and text, for a page that builds its elements itself and so never sets
 *   HTML (tree.ts).
 */
export { escapeHtml, releaseNotesHtml, releaseNotesItems } from './markdown.js';
export { releaseNotesText } from './text.js';
export { releaseNotesTree, type NotesElement, type NotesNode } from './tree.js';
