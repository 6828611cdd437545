/**
 * Where the console is. The address bar shows only the section (`/#licenses`); what a view is
 * about (a license key, a product id) stays in the history entry's state object, so a license
 * key never reaches a URL, the browser's history list or a Referer. Back and forward work
 * through `popstate`; a reload keeps the entry's state.
 */

export type View =
  | { section: 'overview' }
  | { section: 'licenses' }
  | { section: 'license'; key: string }
  | { section: 'catalog' }
  | { section: 'versions'; productId: number | null }
  | { section: 'download-log' }
  | { section: 'trials' }
  | { section: 'webhooks'; endpointId: number | null }
  | { section: 'stores' }
  | { section: 'jobs' }
  | { section: 'admins' }
  | { section: 'audit-log' };

export type Section = View['section'];

/** The sections of the navigation bar, in order; the first is the page after sign-in. */
export const SECTIONS: readonly { section: Section; label: string }[] = [
  { section: 'overview', label: 'Overview' },
  { section: 'licenses', label: 'Licenses' },
  { section: 'catalog', label: 'Products and plans' },
  { section: 'versions', label: 'Versions and files' },
  { section: 'download-log', label: 'Download log' },
  { section: 'trials', label: 'Trials' },
  { section: 'webhooks', label: 'Webhooks' },
  { section: 'stores', label: 'Stores' },
  { section: 'jobs', label: 'Jobs and health' },
  { section: 'admins', label: 'Admins' },
  { section: 'audit-log', label: 'Audit log' },
];

/** The view a section opens with when nothing more is known. */
export function sectionView(section: Section): View {
  switch (section) {
    case 'license':
    case 'licenses':
      return { section: 'licenses' };
    case 'versions':
      return { section: 'versions', productId: null };
    case 'webhooks':
      return { section: 'webhooks', endpointId: null };
    default:
      return { section };
  }
}

/** A key-free address for a view: its section only. */
export function addressOf(view: View): string {
  return `${location.pathname}#${view.section}`;
}

function isView(value: unknown): value is View {
  if (typeof value !== 'object' || value === null) return false;
  const view = value as Record<string, unknown>;
  switch (view.section) {
    case 'license':
      return typeof view.key === 'string' && view.key !== '';
    case 'versions':
      return view.productId === null || typeof view.productId === 'number';
    case 'webhooks':
      return view.endpointId === null || typeof view.endpointId === 'number';
    case 'overview':
    case 'licenses':
    case 'catalog':
    case 'download-log':
    case 'trials':
    case 'stores':
    case 'jobs':
    case 'admins':
    case 'audit-log':
      return true;
    default:
      return false;
  }
}

/** The view of the current history entry: its state, else the section its address names. */
export function currentView(): View {
  const state: unknown = history.state;
  if (isView(state)) return state;
  const named = SECTIONS.find(({ section }) => `#${section}` === location.hash);
  return sectionView(named?.section ?? SECTIONS[0]!.section);
}

export function pushView(view: View): void {
  history.pushState(view, '', addressOf(view));
}

export function replaceView(view: View): void {
  history.replaceState(view, '', addressOf(view));
}
