/** The console's words for admins, their roles and the audit log. */
import type { AdminRole } from '../../../../../libs/contracts/index.js';

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
