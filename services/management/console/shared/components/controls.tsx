/** The console's buttons: reloading, paging, removing with a confirmation first. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { Loaded, Removal } from '../hooks/hooks.js';

/** Loads again; disabled while a load is under way. */
export function ReloadButton({
  loaded,
  small = false,
  label = 'Refresh',
}: {
  loaded: Pick<Loaded<unknown>, 'reload' | 'loading'>;
  small?: boolean;
  label?: string;
}) {
  return (
    <button
      type="button"
      class={small ? 'secondary small' : 'secondary'}
      onClick={loaded.reload}
      disabled={loaded.loading}
    >
      {label}
    </button>
  );
}

/** Previous and next page of a paged list, with where the list is. */
export function Pager({
  page,
  perPage,
  total,
  noun,
  onPage,
}: {
  page: number;
  perPage: number;
  total: number;
  noun: string;
  onPage: (page: number) => void;
}) {
  const pages = Math.max(1, Math.ceil(total / perPage));
  const first = total === 0 ? 0 : (page - 1) * perPage + 1;
  const last = Math.min(total, page * perPage);
  return (
    <nav class="pager" aria-label={`Pages of ${noun}`}>
      <button type="button" class="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span role="status">
        {first}–{last} of {total} {noun} (page {page} of {pages})
      </span>
      <button
        type="button"
        class="secondary"
        disabled={page >= pages}
        onClick={() => onPage(page + 1)}
      >
        Next
      </button>
    </nav>
  );
}

/**
 * A confirmation before a change with consequences (a removal that cannot be undone, a plan
 * change that leaves activations over the limit): a modal dialog (keyboard operable: focus
 * starts on Cancel, Escape cancels, Tab stays inside), so nothing else can be clicked in between.
 * The native dialog is not `window.confirm`, which a page cannot style or word.
 */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  warning = null,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
  /** Said last, in the colour of danger. */
  warning?: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (!element.open) element.showModal();
    cancel.current?.focus();
    return () => {
      if (element.open) element.close();
    };
  }, []);
  return (
    <dialog
      ref={dialog}
      class="confirm"
      aria-labelledby="confirm-title"
      aria-describedby="confirm-text"
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id="confirm-title">{title}</h2>
      <div id="confirm-text">{children}</div>
      {warning !== null && <p class="warning">{warning}</p>}
      <div class="row end">
        <button type="button" class="secondary" ref={cancel} onClick={onCancel}>
          Cancel
        </button>
        <button type="button" class="danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** A row's button that asks for the removal of its item, named in `name`. */
export function RemoveButton<T>({
  removal,
  item,
  verb,
  name,
  allowed = true,
}: {
  removal: Removal<T>;
  item: T;
  verb: string;
  name: string;
  /** False: the signed-in role may not do it, and no button is shown. */
  allowed?: boolean;
}) {
  if (!allowed) return null;
  return (
    <button
      type="button"
      class="danger small"
      aria-label={`${verb} ${name}`}
      disabled={removal.busy}
      onClick={() => removal.ask(item)}
    >
      {verb}
    </button>
  );
}

/** The confirmation of the removal asked for, if any; `children` word it for the item. */
export function ConfirmRemoval<T>({
  removal,
  title,
  confirmLabel,
  children,
}: {
  removal: Removal<T>;
  title: string;
  confirmLabel: string;
  children: (item: T) => ComponentChildren;
}) {
  const item = removal.asked;
  if (item === null) return null;
  return (
    <ConfirmDialog
      title={title}
      confirmLabel={confirmLabel}
      warning="This cannot be undone."
      onConfirm={() => void removal.confirm(item)}
      onCancel={removal.cancel}
    >
      {children(item)}
    </ConfirmDialog>
  );
}
