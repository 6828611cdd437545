/** The console's pieces of lists: sortable headings, the page size, CSV files to save. */
import type { SortOf } from '../../../../../libs/contracts/bounds.js';
import type { ColumnHead } from '../../../../../libs/web/ui/components.js';
import { useAction } from '../hooks/hooks.js';
import { PAGE_SIZES, nextSort, sortState, type PageSize } from '../lib/list-state.js';
import { LIST_WORDS, SORT_ARROWS, sortButtonLabel } from '../words/list-words.js';
import { Outcome } from './notices.js';

/**
 * A column heading that orders the list by its field: a button (so the keyboard reaches it)
 * whose name says what pressing it does, the heading's `aria-sort` how the list is ordered now.
 */
export function sortableColumn<Field extends string>({
  field,
  heading,
  sort,
  onSort,
  newestFirst,
}: {
  field: Field;
  heading: string;
  sort: SortOf<Field>;
  onSort: (sort: SortOf<Field>) => void;
  /** The fields that start newest first (dates). */
  newestFirst: readonly Field[];
}): ColumnHead {
  const state = sortState(sort, field);
  return {
    label: heading,
    sort: state,
    head: (
      <button
        type="button"
        class="sort"
        aria-label={sortButtonLabel(heading, state)}
        onClick={() => onSort(nextSort(sort, field, newestFirst))}
      >
        {heading}
        <span class="arrow" aria-hidden="true">
          {SORT_ARROWS[state]}
        </span>
      </button>
    ),
  };
}

/** How many rows a page of the list holds. */
export function PageSizeSelect({
  value,
  onChange,
}: {
  value: PageSize;
  onChange: (size: PageSize) => void;
}) {
  return (
    <label class="field page-size">
      <span class="label">{LIST_WORDS.pageSize}</span>
      <select
        name="per_page"
        value={String(value)}
        onChange={(event) => onChange(Number(event.currentTarget.value) as PageSize)}
      >
        {PAGE_SIZES.map((size) => (
          <option key={size} value={String(size)}>
            {size}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Hands a file to the browser to save, through a link of this page that is gone at once. */
export function saveFile(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the file once the click is handled.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** Exports the list as the API streams it (every row of the search, in its order). */
export function ExportButton({
  file,
  disabled = false,
}: {
  /** The export's call (`AdminApi.file`). */
  file: () => Promise<{ blob: Blob; filename: string }>;
  disabled?: boolean;
}) {
  const action = useAction();
  const run = () =>
    action.run(async () => {
      const { blob, filename } = await file();
      saveFile(blob, filename);
      return LIST_WORDS.exported(filename);
    });
  return (
    <div class="export">
      <button
        type="button"
        class="secondary"
        disabled={action.busy || disabled}
        title={LIST_WORDS.exportHint}
        onClick={() => void run()}
      >
        {action.busy ? LIST_WORDS.exporting : LIST_WORDS.export}
      </button>
      <Outcome action={action} />
    </div>
  );
}
