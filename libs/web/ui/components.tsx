import { cloneElement, isValidElement, type ComponentChildren } from 'preact';
import { useId, useLayoutEffect, useRef } from 'preact/hooks';
import { ApiError } from './api.js';

/** A failure in words, announced to screen readers. */
export function ErrorNote({ error }: { error: unknown }) {
  if (error === null || error === undefined) return null;
  const text = error instanceof Error ? error.message : String(error);
  const code = error instanceof ApiError && error.code !== 'CONNECTION' ? error.code : null;
  return (
    <p class="error" role="alert">
      {text}
      {code !== null && <span class="code"> ({code})</span>}
    </p>
  );
}

/** What to say when a list is empty, instead of an empty table. */
export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="empty">{children}</p>;
}

/**
 * Names each body cell after its column (`data-label`), for the narrow layout where every row is
 * a card and its cells say what they are (styles.css). A cell spanning columns takes the first.
 */
function labelCells(table: HTMLTableElement, columns: readonly string[]): void {
  for (const body of Array.from(table.tBodies)) {
    for (const row of Array.from(body.rows)) {
      let column = 0;
      for (const cell of Array.from(row.cells)) {
        const label = columns[column] ?? '';
        if (cell.getAttribute('data-label') !== label) cell.setAttribute('data-label', label);
        column += cell.colSpan;
      }
    }
  }
}

/**
 * A column heading that is more than its name: `head` is shown instead (a sort button, a
 * checkbox), and `sort` says how the rows are ordered by it (`aria-sort`), when they can be.
 */
export interface ColumnHead {
  label: string;
  head: ComponentChildren;
  /** What a row's cell is called where rows are cards, when not `label` (which names the head). */
  cellLabel?: string;
  sort?: 'ascending' | 'descending' | 'none';
}

/**
 * A table that fits its box: wide enough screens show it as a table, whose long values wrap;
 * narrow ones (under 700 px) as a list of cards, one per row, each value under its column's name
 * and the row's buttons in view. `actions` adds a last column, named for screen readers only,
 * for each row's buttons.
 */
export function Table({
  columns,
  actions = false,
  children,
}: {
  columns: readonly (string | ColumnHead)[];
  actions?: boolean;
  children: ComponentChildren;
}) {
  const table = useRef<HTMLTableElement>(null);
  const labels = [
    ...columns.map((column) =>
      typeof column === 'string' ? column : (column.cellLabel ?? column.label),
    ),
    ...(actions ? [''] : []),
  ];
  // After every render, and whenever a row renders alone (its own state): rows and cells come
  // from the components of each page, so they are named here rather than by each page.
  useLayoutEffect(() => {
    const element = table.current;
    if (element === null) return;
    labelCells(element, labels);
    const observer = new MutationObserver(() => labelCells(element, labels));
    observer.observe(element, { childList: true, subtree: true });
    return () => observer.disconnect();
  });
  return (
    <div class="table-wrap">
      <table ref={table}>
        <thead>
          <tr>
            {columns.map((column) =>
              typeof column === 'string' ? (
                <th key={column} scope="col">
                  {column}
                </th>
              ) : (
                <th key={column.label} scope="col" aria-sort={column.sort}>
                  {column.head}
                </th>
              ),
            )}
            {actions && (
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/**
 * A labelled control. The label names the control alone (`for`), and the hint describes it
 * (`aria-describedby`), so a screen reader announces "Status, combo box" and then the hint,
 * rather than reading the hint and every option as the control's name. `error` says what is
 * wrong with the value as typed, under the control, which it marks invalid.
 */
export function Field({
  label,
  hint,
  error = null,
  children,
}: {
  label: string;
  hint?: string;
  error?: string | null;
  children: ComponentChildren;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const described = [
    ...(error !== null ? [errorId] : []),
    ...(hint !== undefined ? [hintId] : []),
  ].join(' ');
  if (!isValidElement(children)) {
    // Several controls: the label still groups them, by wrapping.
    return (
      <label class="field">
        <span class="label">{label}</span>
        {children}
        {hint !== undefined && <span class="hint">{hint}</span>}
      </label>
    );
  }
  return (
    <div class="field">
      <label class="label" for={id}>
        {label}
      </label>
      {cloneElement(children, {
        id,
        ...(described !== '' ? { 'aria-describedby': described } : {}),
        ...(error !== null ? { 'aria-invalid': true } : {}),
      })}
      {error !== null && (
        <span class="field-error" id={errorId} role="alert">
          {error}
        </span>
      )}
      {hint !== undefined && (
        <span class="hint" id={hintId}>
          {hint}
        </span>
      )}
    </div>
  );
}
