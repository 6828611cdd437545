import type { ActivationType } from '../contracts/index.js';

/**
 * Spec 2.4: the server normalises the identifier per activation type on every activate,
 * deactivate and download call, and on activations added in admin. Returns null when the
 * identifier normalises to nothing (refused with INVALID_REQUEST).
 *
 * Every type is trimmed first: surrounding white space is never part of an identifier.
 */
export function normaliseIdentifier(type: ActivationType, raw: string): string | null {
  const trimmed = raw.trim();
  let value: string;
  switch (type) {
    case 'domain':
      value = normaliseDomain(trimmed);
      break;
    case 'seat':
      value = trimmed.toLowerCase();
      break;
    case 'device':
    case 'instance':
      value = trimmed;
      break;
  }
  return value.length > 0 ? value : null;
}

/**
 * Scheme, user info, leading `www.`, port and path (with query and fragment) are stripped. A host
 * with white space inside is no domain: it normalises to nothing.
 */
function normaliseDomain(value: string): string {
  let host = value.replace(/^[a-z][a-z0-9+.-]*:\/\//i, ''); // scheme
  host = host.replace(/^https?:\/*/i, ''); // a web scheme mistyped (`https:/example.com`)
  host = host.replace(/^\/\//, ''); // scheme-relative URL
  host = host.split(/[/?#\\]/, 1)[0] ?? ''; // path, query, fragment
  const at = host.lastIndexOf('@');
  if (at !== -1) host = host.slice(at + 1); // user info
  if (host.startsWith('[')) {
    const end = host.indexOf(']'); // IPv6 literal, possibly with a port
    host = end === -1 ? host : host.slice(0, end + 1);
  } else {
    host = host.replace(/:\d*$/, ''); // port
  }
  host = host.replace(/^www\./i, '').trim();
  return /\s/.test(host) ? '' : host.toLowerCase();
}

/**
 * Spec 2.4: identifiers are compared case-insensitively, so two identifiers that differ only in
 * letter case are the same device or instance. Stored beside the identifier for exact lookups.
 */
export function identifierKey(normalised: string): string {
  return normalised.toLowerCase();
}
