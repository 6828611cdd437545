/** What a page says of its loads and actions, announced to screen readers. */
import type { ComponentChildren } from 'preact';
import { ErrorNote } from '../../../../../libs/web/ui/components.js';
import type { Action, Loaded } from '../hooks/hooks.js';

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
