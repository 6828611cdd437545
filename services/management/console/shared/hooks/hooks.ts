/** The state of the console's loads, actions and removals, which its pages show. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { explain } from '../words/words.js';

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

/** The longest delay a browser timer takes; a longer one would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * The time now, as of this render; the component renders again when the soonest of `moments`
 * (ISO timestamps, or null) still ahead has passed, so what depends on it (a lease that ends)
 * changes on screen when it happens.
 */
export function useNow(moments: readonly (string | null)[]): number {
  const [, setTicks] = useState(0);
  const now = Date.now();
  let next = Infinity;
  for (const moment of moments) {
    const at = moment === null ? NaN : Date.parse(moment);
    if (at > now && at < next) next = at;
  }
  useEffect(() => {
    if (next === Infinity) return;
    // A moment past the timer's reach is looked at again when the longest delay ends.
    const timer = setTimeout(
      () => setTicks((n) => n + 1),
      Math.min(next - Date.now() + 1, MAX_TIMER_MS),
    );
    return () => clearTimeout(timer);
  }, [next]);
  return now;
}

/** Told when an action starts, so the outcomes of the others on the page are cleared. */
const actionStarts = new EventTarget();

/**
 * One action's state: whether it runs, its failure in words, and a result to announce. `run`
 * clears the previous outcome, and those of every other action on the page, so what the page
 * says always belongs to the last attempt: no old success stays beside a new failure.
 */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const self = useRef({});
  useEffect(() => {
    const clearIfOther = (event: Event) => {
      if ((event as CustomEvent<object>).detail === self.current) return;
      setError(null);
      setDone(null);
    };
    actionStarts.addEventListener('start', clearIfOther);
    return () => actionStarts.removeEventListener('start', clearIfOther);
  }, []);
  const run = useCallback(async (action: () => Promise<string | null>) => {
    actionStarts.dispatchEvent(new CustomEvent('start', { detail: self.current }));
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

export type Action = ReturnType<typeof useAction>;

/**
 * A removal from a list that asks first (RemoveButton, ConfirmRemoval): `ask` opens the dialog
 * for an item, its confirmation runs `remove` as `action`. The row and its button are gone
 * afterwards, so keyboard focus resumes at the list's heading (`heading`, which needs
 * `tabIndex={-1}`).
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

export type Removal<T> = ReturnType<typeof useRemoval<T>>;
