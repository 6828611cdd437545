import { isIPv4, isIPv6 } from 'node:net';
import { domainToASCII } from 'node:url';
import {
  MAX_EMAIL_LENGTH,
  MAX_FIELD_LENGTH,
  characterLength,
  type ActivationType,
} from '../contracts/index.js';

/** An identifier normalised as spec 2.4 says, or why it cannot be one. */
export type IdentifierCheck = { identifier: string } | { problem: string };

/**
 * Spec 2.4: the server normalises the identifier per activation type on every activate,
 * deactivate and download call, and on activations added in admin.
 *
 * Every type is trimmed first: surrounding white space is never part of an identifier. The limit
 * of 255 characters (2.3) holds for the value stored, so it is measured after normalisation:
 * lower-casing can lengthen a value (`İ` becomes two code points).
 */
export function checkIdentifier(type: ActivationType, raw: string): IdentifierCheck {
  const trimmed = raw.trim();
  let value: string;
  switch (type) {
    case 'domain': {
      const host = normaliseDomain(trimmed);
      if (typeof host !== 'string') return host;
      value = host;
      break;
    }
    case 'seat':
      value = trimmed.toLowerCase();
      break;
    case 'device':
    case 'instance':
      value = trimmed;
      break;
  }
  if (value.length === 0) return { problem: 'The identifier is empty once normalised.' };
  if (characterLength(value) > MAX_FIELD_LENGTH) {
    return {
      problem: `The identifier is over ${MAX_FIELD_LENGTH} characters once normalised.`,
    };
  }
  return { identifier: value };
}

/** The normalised identifier, or null when the value cannot be one (refused: INVALID_REQUEST). */
export function normaliseIdentifier(type: ActivationType, raw: string): string | null {
  const checked = checkIdentifier(type, raw);
  return 'identifier' in checked ? checked.identifier : null;
}

/**
 * Characters nobody sees: format and control characters and the default-ignorable ones (zero
 * width space, soft hyphen, byte order mark, bidirectional controls). IDNA would silently drop
 * most of them, so `\u200bexample.com` would pass for `example.com`; they are refused instead.
 */
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}]/u;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'gu');

/** `text` with every character nobody sees (as `INVISIBLE` names them) removed. */
export function withoutInvisible(text: string): string {
  return text.replace(INVISIBLE_ALL, '');
}

/** Letters, digits and hyphens, not at either end, 1 to 63 of them (RFC 1123 2.1). */
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const MAX_HOST_NAME_LENGTH = 253;

const NOT_A_HOST = {
  problem:
    'The identifier is not a website: send a host name (letters, digits and hyphens, labels of ' +
    'at most 63 characters) or an IP address (IPv6 in brackets).',
};

/**
 * A website's host in one canonical form: scheme, user info, port, path, a leading `www.` and a
 * trailing dot are stripped; the rest goes through IDNA (UTS 46, as browsers do: full-width
 * forms and letter case folded) to its ASCII form, so `bücher.de` and `xn--bcher-kva.de` are one
 * site, stored as `xn--bcher-kva.de` (docs/api-decisions.md). What remains must be a host name or
 * an IP address; anything else is refused.
 */
function normaliseDomain(value: string): string | { problem: string } {
  if (INVISIBLE.test(value)) {
    return { problem: 'The identifier contains invisible or control characters.' };
  }
  let host = value.replace(/^[a-z][a-z0-9+.-]*:\/\//i, ''); // scheme
  host = host.replace(/^https?:\/*/i, ''); // a web scheme mistyped (`https:/example.com`)
  host = host.replace(/^\/\//, ''); // scheme-relative URL
  host = host.split(/[/?#\\]/, 1)[0] ?? ''; // path, query, fragment
  const at = host.lastIndexOf('@');
  if (at !== -1) host = host.slice(at + 1); // user info
  host = host.trim();
  if (isIPv6(host)) host = `[${host}]`; // an IPv6 address sent without brackets
  if (host.startsWith('[')) {
    // An IPv6 literal, possibly with a port; nothing else may follow it.
    const end = host.indexOf(']');
    if (end === -1 || !/^(:\d*)?$/.test(host.slice(end + 1))) return NOT_A_HOST;
    host = host.slice(0, end + 1);
  } else {
    host = host.replace(/:\d*$/, ''); // port
  }
  if (host === '') return { problem: 'The identifier names no website once normalised.' };
  // IDNA answers '' for what cannot be a host (white space, `<`, `:` outside brackets...).
  let ascii = domainToASCII(host);
  if (ascii === '') return NOT_A_HOST;
  ascii = ascii.replace(/^www\./, '');
  if (ascii.endsWith('.')) ascii = ascii.slice(0, -1); // the root's dot: `example.com.`
  if (ascii === '') return { problem: 'The identifier names no website once normalised.' };
  return isHostName(ascii) || isIPv4(ascii) || isBracketedIPv6(ascii) ? ascii : NOT_A_HOST;
}

function isHostName(host: string): boolean {
  if (host.length > MAX_HOST_NAME_LENGTH) return false;
  const labels = host.split('.');
  // A last label of digits only would be an IPv4 address, which IDNA has already read as one.
  return labels.every((label) => LABEL.test(label)) && !/^[0-9]+$/.test(labels.at(-1) ?? '');
}

function isBracketedIPv6(host: string): boolean {
  return host.startsWith('[') && host.endsWith(']') && isIPv6(host.slice(1, -1));
}

/**
 * Spec 2.4: identifiers are compared case-insensitively, so two identifiers that differ only in
 * letter case are the same device or instance. Stored beside the identifier for exact lookups.
 */
export function identifierKey(normalised: string): string {
  return normalised.toLowerCase();
}

/** An e-mail address normalised, or why it cannot be one. */
export type EmailCheck = { email: string } | { problem: string };

/** The most characters before the `@` (RFC 5321 4.5.3.1.1). */
const MAX_LOCAL_PART_LENGTH = 64;

/**
 * A customer's e-mail address in one form (docs/api-decisions.md, "Customers and metadata"),
 * so that it is found whatever its spelling: trimmed; lower-cased whole, as spec 2.4 treats a
 * seat's address; its domain in ASCII form (IDNA, as websites are stored: `bücher.de` is
 * `xn--bcher-kva.de`). The address must be one `@` between a local part of 1 to 64 characters
 * without white space, invisible or control characters, and a host name of two labels or more;
 * at most 254 characters in all.
 */
export function checkEmailAddress(raw: string): EmailCheck {
  const trimmed = raw.trim();
  const at = trimmed.indexOf('@');
  if (at === -1 || at !== trimmed.lastIndexOf('@')) {
    return { problem: 'An e-mail address has one @ between its name and its domain.' };
  }
  const local = trimmed.slice(0, at).toLowerCase();
  if (local === '' || characterLength(local) > MAX_LOCAL_PART_LENGTH) {
    return { problem: `The part before the @ must be 1 to ${MAX_LOCAL_PART_LENGTH} characters.` };
  }
  if (/\s/u.test(local) || INVISIBLE.test(local)) {
    return { problem: 'The part before the @ contains white space or invisible characters.' };
  }
  const domainPart = trimmed.slice(at + 1);
  const domain = INVISIBLE.test(domainPart) ? '' : domainToASCII(domainPart);
  if (!isHostName(domain) || !domain.includes('.')) {
    return { problem: 'The part after the @ is not a domain name (such as example.com).' };
  }
  const email = `${local}@${domain}`;
  if (characterLength(email) > MAX_EMAIL_LENGTH) {
    return { problem: `An e-mail address is at most ${MAX_EMAIL_LENGTH} characters.` };
  }
  return { email };
}
