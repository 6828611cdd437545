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
