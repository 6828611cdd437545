/** The release notes of a new version, in Markdown, with a live preview of what updaters show. */
import { Field } from '../../../../../libs/web/ui/components.js';
import { useLoad } from '../../shared/hooks/hooks.js';

export function ReleaseNotesField({
  notes,
  onNotes,
}: {
  notes: string;
  onNotes: (notes: string) => void;
}) {
  // The Markdown reader comes with the preview, in a chunk fetched when the form is shown.
  const preview = useLoad(() => import('./release-notes-preview.js'), []);
  return (
    <>
      <Field
        label="Release notes"
        hint="Markdown: **bold**, *italic*, - lists, [links](https://…). HTML shows as text."
      >
        <textarea
          name="release_notes"
          rows={4}
          value={notes}
          onInput={(event) => onNotes(event.currentTarget.value)}
        />
      </Field>
      <section class="notes-preview" aria-label="Release notes preview" data-notes-preview>
        <h3 class="label">Preview</h3>
        {preview.data === null ? (
          <p class="muted">{preview.error === null ? 'Loading the preview…' : 'No preview.'}</p>
        ) : (
          <preview.data.ReleaseNotesPreview notes={notes} />
        )}
      </section>
    </>
  );
}
