import type { RenderedFeed } from './feed-answer.js';
import { offeredReleases, type FeedContext } from './feed-context.js';
import { JOOMLA_XML, joomlaSettingsOf } from './joomla.js';
import { releaseNotesItems } from '../../../libs/release-notes/index.js';
import { cdata, xml } from './xml.js';

type ChangelogRequest = Extract<FeedContext['request'], { format: 'joomla-changelog' }>;

/**
 * Joomla's changelog (its Changelog class): a `<changelog>` per version offered to the caller,
 * newest first, of which Joomla shows the one whose `<version>` equals the version installed or
 * offered. The notes are listed under `<change>`, an `<item>` per list item or line of their
 * Markdown, as HTML: Joomla writes each item into its back end as it is. Each `<item>` is a CDATA
 * section, because Joomla takes each piece of character data as an item of its own and an entity
 * reference would split one.
 */
export function joomlaChangelog(context: FeedContext<ChangelogRequest>): RenderedFeed {
  const settings = joomlaSettingsOf(context);
  const changelogs = offeredReleases(context).map(({ version }) => {
    const items = releaseNotesItems(version.release_notes).map(
      (item) => xml`
      <item>${cdata(item)}</item>`,
    );
    return xml`
  <changelog>
    <element>${settings.element}</element>
    <type>${settings.type}</type>${
      settings.folder === null
        ? null
        : xml`
    <folder>${settings.folder}</folder>`
    }
    <version>${version.version}</version>${
      items.length === 0
        ? null
        : xml`
    <change>${items}
    </change>`
    }
  </changelog>`;
  });
  return {
    content_type: JOOMLA_XML,
    body: xml`<?xml version="1.0" encoding="utf-8"?>
<changelogs>${changelogs}
</changelogs>
`.text,
  };
}
