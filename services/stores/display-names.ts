import { MAX_FIELD_LENGTH } from '../../libs/contracts/index.js';
import type { StoreCustomer } from './store-events.js';

/** Format characters (bidi overrides and isolates, zero-width ones, soft hyphens), lone surrogates. */
const FORMAT = /[\p{Cf}\p{Cs}]/gu;
/** Control characters (NUL, CR, LF, tab, ...) and line and paragraph separators. */
const CONTROL = /[\p{Cc}\p{Zl}\p{Zp}]/gu;

/**
 * A name a store sent, as it is stored and shown: each control character or line break becomes a
 * space (it separated words, and would split a line or a header), each format character is
 * removed (a U+202E would show the rest of the name, and what follows it, reversed; a U+200B
 * hides in it), runs of spaces are one, and the name is cut to 255 characters. Nothing left: null.
 */
export function displayName(name: string | null): string | null {
  if (name === null) return null;
  const shown = name.replace(FORMAT, '').replace(CONTROL, ' ').replace(/\s+/gu, ' ').trim();
  if (shown === '') return null;
  return Array.from(shown).slice(0, MAX_FIELD_LENGTH).join('').trimEnd();
}

/** The store's customer with their name as `displayName` keeps it; the address as it came. */
export function withDisplayName(customer: StoreCustomer | null): StoreCustomer | null {
  return customer && { ...customer, name: displayName(customer.name) };
}
