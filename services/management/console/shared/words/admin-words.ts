/** The console's words for admins, their roles and the audit log. */
import type {
  AdminRole,
  AuditEntry,
  AuditSourceKind,
} from '../../../../../libs/contracts/index.js';
import { PROVIDER_WORDS } from './store-words.js';

export const ROLE_WORDS: Record<AdminRole, { name: string; can: string }> = {
  viewer: { name: 'Viewer', can: 'Reads everything; changes nothing.' },
  support: {
    name: 'Support',
    can: 'Issues and changes licenses, their activations, limits, plans and renewals; reads the catalog.',
  },
  owner: { name: 'Owner', can: 'Does everything, and manages admins.' },
};

/** The roles' names, for a select. */
export const ROLE_NAMES = Object.fromEntries(
  Object.entries(ROLE_WORDS).map(([role, words]) => [role, words.name]),
) as Record<AdminRole, string>;

/** What the audit log names an admin; the bootstrap owner is admin 0. */
export function adminWords(admin: { id: number; name: string }): string {
  return admin.id === 0 ? admin.name : `${admin.name} (#${admin.id})`;
}

/** The audit log's sources, as its filter offers them. */
export const SOURCE_WORDS: Record<AuditSourceKind, string> = {
  admin: 'Admins',
  store_event: "Stores' events",
  store_grace: "Stores' grace periods",
};

/**
 * Who or what made a change, and what names it further: an admin; or a store connection, with
 * the event of it that was applied (the store's name and id of the event), or its grace period,
 * after which the stores service suspended a license past due.
 */
export function madeByWords(entry: Pick<AuditEntry, 'admin' | 'source'>): {
  by: string;
  detail: string | null;
} {
  const { source } = entry;
  if (source.kind === 'admin') {
    return { by: entry.admin ? adminWords(entry.admin) : 'An admin', detail: null };
  }
  const { connection } = source;
  const by = `Store: ${connection.name} (#${connection.id}, ${PROVIDER_WORDS[connection.provider]})`;
  return source.kind === 'store_event'
    ? { by, detail: `Event ${source.event.type} ${source.event.event_id}` }
    : { by, detail: 'Past due longer than its grace days' };
}

/**
 * An action of the audit log in words: its operation id split where a capital starts
 * (`updateLicense` is "update license"), since every route's id is a verb and its object.
 */
export function actionWords(action: string): string {
  const words = action.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A value of a field before or after a change, as text. */
export function valueWords(value: unknown): string {
  if (value === null || value === undefined) return '(none)';
  if (typeof value === 'string') return value === '' ? '(empty)' : value;
  return JSON.stringify(value);
}
