import type { ComponentChildren, InputHTMLAttributes, SelectHTMLAttributes } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type {
  ActivationType,
  DownloadAccess,
  LicenseStatus,
} from '../../../libs/contracts/index.js';
import { ApiError } from '../../../libs/web/ui/api.js';
import { ErrorNote } from '../../../libs/web/ui/components.js';
import { STATUS_WORDS } from '../../../libs/web/ui/words.js';
import { useDirectory } from './directory.js';

// ---- Words for the API's values ----

export const ACTIVATION_TYPE_WORDS: Record<ActivationType, string> = {
  domain: 'Domain (websites)',
  device: 'Device (computers, phones)',
  seat: 'Seat (users, by e-mail)',
  instance: 'Instance (servers, containers)',
};

/** Spec 2.7: Download API Access, as the admin sets it. */
export const DOWNLOAD_ACCESS_WORDS: Record<DownloadAccess, string> = {
  license_key: 'License key',
  activated_identifier: 'License key + activated identifier',
  account: 'Account only',
  public: 'Public (no key)',
};

export function limitWords(limit: number): string {
  return limit === 0 ? 'Unlimited' : String(limit);
}

export function StatusBadge({ status }: { status: LicenseStatus }) {
  return <span class={`badge status-${status}`}>{STATUS_WORDS[status]}</span>;
}

export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = size / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

/** A `datetime-local` value (the viewer's time zone) as an ISO timestamp, or null when empty. */
export function localInputToIso(value: string): string | null {
  if (value.trim() === '') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** An ISO timestamp as a `datetime-local` value in the viewer's time zone. */
export function isoToLocalInput(iso: string | null): string {
  if (iso === null) return '';
  const date = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}` +
    `T${pad(date.getHours())}:${pad(date.getMinutes())}`
  );
}

// ---- Errors in words ----

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

/**
 * A refusal in words, with the numbers it carries: the limit refusals say how many activations
 * are in use and what would be allowed (spec 3.3, 4.1).
 */
export function explain(error: unknown): unknown {
  if (!(error instanceof ApiError)) return error;
  const limit = error.details.activation_limit;
  const used = error.details.activations_used;
  if (typeof limit !== 'number' || typeof used !== 'number') return error;
  if (error.code === 'ACTIVATION_LIMIT_TOO_LOW') {
    return new ApiError(
      error.status,
      error.code,
      `A limit of ${limit} is below the ${plural(used, 'activation')} in use. Remove ` +
        `${plural(used - limit, 'activation')} first, or set a limit of at least ${used} ` +
        '(0 means unlimited).',
      error.details,
    );
  }
  if (error.code === 'ACTIVATION_LIMIT_REACHED') {
    return new ApiError(
      error.status,
      error.code,
      `${used} of ${limit} activations are in use. Remove one, or raise the limit first.`,
      error.details,
    );
  }
  return error;
}

// ---- Loading ----

export interface Loaded<T> {
  data: T | null;
  error: unknown;
  loading: boolean;
  reload: () => void;
  /** Shows a newer value than the one loaded (the answer of a change). */
  replace: (value: T) => void;
}

/**
 * Data loaded when the component appears and whenever `deps` change. An answer that arrives
 * after a newer request was made is dropped, so a slow page never overwrites a newer one.
 */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const mine = ++latest.current;
    setLoading(true);
    load().then(
      (value) => {
        if (mine !== latest.current) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (failure: unknown) => {
        if (mine !== latest.current) return;
        setError(failure);
        setLoading(false);
      },
    );
    // `load` is a new closure on every render; what it depends on is `deps`.
  }, [...deps, round]);
  const reload = useCallback(() => setRound((n) => n + 1), []);
  const replace = useCallback((value: T) => {
    // A load still under way would bring an older value: drop it.
    latest.current += 1;
    setData(value);
    setError(null);
    setLoading(false);
  }, []);
  return { data, error, loading, reload, replace };
}

/**
 * One action's state: whether it runs, its failure in words, and a result to announce. `run`
 * clears the previous outcome, so a message always belongs to the last attempt.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = useCallback(async (action: () => Promise<string | null>) => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      setDone(await action());
      return true;
    } catch (failure) {
      setError(explain(failure));
      return false;
    } finally {
      setBusy(false);
    }
  }, []);
  const clear = useCallback(() => {
    setError(null);
    setDone(null);
  }, []);
  return { busy, error, done, run, clear };
}

type Action = ReturnType<typeof useAction>;

/**
 * A removal from a list that asks first (ConfirmDialog): `ask` opens the dialog for an item, its
 * confirmation runs `remove` as `action`. The row and its button are gone afterwards, so keyboard
 * focus resumes at the list's heading (`heading`, which needs `tabIndex={-1}`).
 */
export function useRemoval<T>(action: Action, remove: (item: T) => Promise<string | null>) {
  const [asked, setAsked] = useState<T | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const confirm = async (item: T) => {
    setAsked(null);
    await action.run(() => remove(item));
    heading.current?.focus();
  };
  const cancel = () => setAsked(null);
  return { asked, ask: setAsked, cancel, confirm, heading, busy: action.busy };
}

type Removal<T> = ReturnType<typeof useRemoval<T>>;

// ---- Pieces of pages ----

/** A load's failure, then "Loading …" until its first answer, then what `children` make of it. */
export function LoadView<T>({
  loaded,
  what,
  children,
}: {
  loaded: Loaded<T>;
  what: string;
  children: (data: T) => ComponentChildren;
}) {
  return (
    <>
      <ErrorNote error={loaded.error} />
      {loaded.data === null ? loaded.loading && <Loading what={what} /> : children(loaded.data)}
    </>
  );
}

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

/** The outcome of an action's last run: its failure in words, or its result. */
export function Outcome({ action }: { action: Pick<Action, 'error' | 'done'> }) {
  return (
    <>
      <ErrorNote error={action.error} />
      <Done>{action.done}</Done>
    </>
  );
}

/** A result announced to screen readers. */
export function Done({ children }: { children: ComponentChildren }) {
  if (children === null || children === undefined || children === '') return null;
  return (
    <p class="notice" role="status">
      {children}
    </p>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** A checkbox with its label beside it (`hideLabel`: for screen readers only, as in a table). */
export function Check({
  label,
  checked,
  onChange,
  disabled,
  hideLabel = false,
}: {
  label: string;
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
  hideLabel?: boolean;
}) {
  return (
    <label class="check">
      <input
        type="checkbox"
        checked={checked}
        disabled={disabled}
        onChange={(event) => onChange(event.currentTarget.checked)}
      />
      <span class={hideLabel ? 'visually-hidden' : undefined}>{label}</span>
    </label>
  );
}

/** A text input whose typed value goes to `onValue`; Field gives it its id and hint. */
export function Input({
  onValue,
  ...attributes
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'onInput'> & { onValue: (value: string) => void }) {
  return <input {...attributes} onInput={(event) => onValue(event.currentTarget.value)} />;
}

/** An activation limit (spec 3.3): a whole number, 0 for unlimited. */
export function LimitInput(props: Parameters<typeof Input>[0]) {
  return (
    <Input
      type="number"
      name="activation_limit"
      min={0}
      max={1000000}
      step={1}
      required
      {...props}
    />
  );
}

/** Whether an activation limit as typed can be sent. */
export const isLimit = (text: string) => /^\d+$/.test(text);

/** Radio buttons under a legend, one per choice, in the order `choices` lists them. */
export function Radios<T extends string>({
  legend,
  name,
  value,
  onChange,
  choices,
}: {
  legend: string;
  name: string;
  value: T;
  onChange: (value: T) => void;
  choices: Record<T, string>;
}) {
  return (
    <fieldset>
      <legend>{legend}</legend>
      {(Object.keys(choices) as T[]).map((choice) => (
        <label key={choice} class="check">
          <input
            type="radio"
            name={name}
            value={choice}
            checked={value === choice}
            onChange={() => onChange(choice)}
          />
          <span>{choices[choice]}</span>
        </label>
      ))}
    </fieldset>
  );
}

type SelectAttributes = Omit<SelectHTMLAttributes<HTMLSelectElement>, 'value' | 'onChange'>;

/**
 * One of the API's values, shown in its words (STATUS_WORDS and the like); `none` adds an empty
 * choice, which is null.
 */
export function WordSelect<T extends string>(
  props: SelectAttributes & { words: Record<T, string> } & (
      | { none?: undefined; value: T; onChange: (value: T) => void }
      | { none: string; value: T | null; onChange: (value: T | null) => void }
    ),
) {
  const { words, none, value, onChange, ...attributes } = props;
  return (
    <select
      {...attributes}
      value={value ?? ''}
      onChange={(event) => {
        const text = event.currentTarget.value;
        if (props.none === undefined) props.onChange(text as T);
        else props.onChange(text === '' ? null : (text as T));
      }}
    >
      {none !== undefined && <option value="">{none}</option>}
      {(Object.keys(words) as T[]).map((word) => (
        <option key={word} value={word}>
          {words[word]}
        </option>
      ))}
    </select>
  );
}

const idOrNull = (value: string) => (value === '' ? null : Number(value));

type IdSelectProps = SelectAttributes & {
  /** The empty choice's words; it stands for null. */
  none: string;
  value: number | null;
  onChange: (id: number | null) => void;
};

/** A choice of a product or plan by its id, or of none. */
export function IdSelect({
  choices,
  none,
  value,
  onChange,
  ...attributes
}: IdSelectProps & { choices: readonly { id: number; text: string }[] }) {
  return (
    <select
      {...attributes}
      value={value ?? ''}
      onChange={(event) => onChange(idOrNull(event.currentTarget.value))}
    >
      <option value="">{none}</option>
      {choices.map(({ id, text }) => (
        <option key={id} value={id}>
          {text}
        </option>
      ))}
    </select>
  );
}

export function ProductSelect(props: IdSelectProps) {
  const { products } = useDirectory();
  return <IdSelect {...props} choices={products.map(({ id, title }) => ({ id, text: title }))} />;
}

export function PlanSelect(props: IdSelectProps) {
  const { plans } = useDirectory();
  return <IdSelect {...props} choices={plans.map(({ id, name }) => ({ id, text: name }))} />;
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
 * A confirmation before something that cannot be undone: a modal dialog (keyboard operable:
 * focus starts on Cancel, Escape cancels, Tab stays inside), so nothing else can be clicked in
 * between. The native dialog is not `window.confirm`, which a page cannot style or word.
 */
function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onCancel,
}: {
  title: string;
  children: ComponentChildren;
  confirmLabel: string;
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
      <p class="warning">This cannot be undone.</p>
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
}: {
  removal: Removal<T>;
  item: T;
  verb: string;
  name: string;
}) {
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
      onConfirm={() => void removal.confirm(item)}
      onCancel={removal.cancel}
    >
      {children(item)}
    </ConfirmDialog>
  );
}
