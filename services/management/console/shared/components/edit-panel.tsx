import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { useAction } from '../hooks/hooks.js';
import { Outcome } from './notices.js';

/**
 * A shown item's settings changed in place (a PATCH), under its list or facts: Save and Cancel
 * under the fields, and what went wrong said in the panel. Focus starts in its first field, and
 * Escape cancels, so the keyboard need not travel past the rest of the page to reach it.
 */
export function EditPanel({
  label,
  first,
  ready,
  save,
  onCancel,
  children,
}: {
  /** The form's accessible name. */
  label: string;
  /** The `name` of the field that has focus when the panel opens. */
  first: string;
  /** Whether the fields can be sent as they are. */
  ready: boolean;
  /** Sends the change; a refusal it throws is shown in the panel. */
  save: () => Promise<void>;
  onCancel: () => void;
  children: ComponentChildren;
}) {
  const form = useRef<HTMLFormElement>(null);
  useEffect(
    () => form.current?.querySelector<HTMLInputElement>(`input[name="${first}"]`)?.focus(),
    [],
  );
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => {
      await save();
      return null;
    });
  };
  return (
    <form
      method="post"
      ref={form}
      onSubmit={submit}
      onKeyDown={(event) => {
        if (event.key === 'Escape') onCancel();
      }}
      class="panel"
      aria-label={label}
    >
      {children}
      <div class="row">
        <button type="submit" disabled={action.busy || !ready}>
          Save
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
      <Outcome action={action} />
    </form>
  );
}
