import { cloneElement, isValidElement, type ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
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
 * A column heading that is more than its name: `head` is shown instead (a sort button, a
 * checkbox), and `sort` says how the rows are ordered by it (`aria-sort`), when they can be.
 */
export interface ColumnHead {
  label: string;
  head: ComponentChildren;
  sort?: 'ascending' | 'descending' | 'none';
}

/**
 * A table in a box of its own that scrolls sideways on a narrow screen; `actions` adds a last
 * column, named for screen readers only, for each row's buttons.
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
  return (
    <div class="table-wrap">
      <table>
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
 * rather than reading the hint and every option as the control's name.
 */
export function Field({
  label,
  hint,
  children,
}: {
  label: string;
  hint?: string;
  children: ComponentChildren;
}) {
  const id = useId();
  const hintId = `${id}-hint`;
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
        ...(hint !== undefined ? { 'aria-describedby': hintId } : {}),
      })}
      {hint !== undefined && (
        <span class="hint" id={hintId}>
          {hint}
        </span>
      )}
    </div>
  );
}
