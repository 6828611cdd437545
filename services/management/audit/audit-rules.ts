import { keyFingerprint } from '../../../libs/logging/index.js';

/**
 * What the audit log keeps of a change (docs/api-decisions.md, "Audit log"): the fields that
 * changed, before and after, never a secret, and a license key only as its fingerprint.
 */

type Fields = Record<string, unknown>;

/**
 * Fields whose values are secrets or carry them: webhook and store signing secrets, a store's
 * API key, the token shown once, hashes, keys; and webhook payloads, which hold license keys
 * whole. Never written.
 */
const SECRET_FIELD = /(^|_)(secrets?|token|password|hash|private_key|signing_key|api_key|payload)$/;

/** Fields that hold license keys: written as their fingerprints. */
const KEY_FIELD = /^(license_key|license_keys|dlid)$/;

function fingerprints(value: unknown): unknown {
  if (typeof value === 'string') return keyFingerprint(value);
  if (Array.isArray(value)) return value.map(fingerprints);
  return value;
}

/** `value` as JSON, without secrets, its license keys as fingerprints. */
export function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value instanceof Date) return value.toISOString();
  if (typeof value !== 'object' || value === null) return value;
  const kept: Fields = {};
  for (const [name, field] of Object.entries(value)) {
    if (field === undefined || SECRET_FIELD.test(name)) continue;
    kept[name] = KEY_FIELD.test(name) ? fingerprints(field) : redact(field);
  }
  return kept;
}

const asFields = (value: unknown): Fields | null => {
  const redacted = redact(value);
  if (redacted === null || redacted === undefined) return null;
  return typeof redacted === 'object' && !Array.isArray(redacted)
    ? (redacted as Fields)
    : { value: redacted };
};

/**
 * The before and after of an entry: for a record changed, only the fields whose values differ
 * (a license's hundred activations are not repeated because its limit changed); for a record
 * created or removed, all of it.
 */
export function changedFields(
  before: unknown,
  after: unknown,
): { before: Fields | null; after: Fields | null } {
  const was = asFields(before);
  const is = asFields(after);
  if (was === null || is === null) return { before: was, after: is };
  const changedBefore: Fields = {};
  const changedAfter: Fields = {};
  for (const name of new Set([...Object.keys(was), ...Object.keys(is)])) {
    if (JSON.stringify(was[name]) === JSON.stringify(is[name])) continue;
    if (name in was) changedBefore[name] = was[name];
    if (name in is) changedAfter[name] = is[name];
  }
  return { before: changedBefore, after: changedAfter };
}

/**
 * Whether a change left the record as it was: there before and after, and no field differs. A
 * change of many records (a bulk change) keeps an entry only for each record it did change.
 */
export function leftAsItWas(kept: { before: Fields | null; after: Fields | null }): boolean {
  const { before, after } = kept;
  return (
    before !== null &&
    after !== null &&
    Object.keys(before).length === 0 &&
    Object.keys(after).length === 0
  );
}

/**
 * What a change is about, from the path of the record (the route's own path, or the `Location`
 * of a record it created): the kind, from the first segment under the API's base, and the
 * record's id; a license by its key's fingerprint. `/admin/v1/licenses/K/activations/x` is
 * `license:key#…`, `/admin/v1/products/12/versions` is `product:12`. Given the route's template,
 * a second segment that is no parameter of it names no record (`/admin/v1/licenses/import`):
 * the target is the kind alone, `license`.
 */
export function targetOf(path: string, base: string, template?: string): string {
  const segments = (text: string) =>
    text
      .slice(base.length)
      .split('?', 1)[0]!
      .split('/')
      .filter((segment) => segment !== '');
  const [collection = '', id] = segments(path).map((segment) => decodeURIComponent(segment));
  const kind = collection.endsWith('s') ? collection.slice(0, -1) : collection;
  const named = template === undefined || segments(template)[1]?.startsWith(':') === true;
  if (id === undefined || !named) return kind;
  return `${kind}:${kind === 'license' ? keyFingerprint(id) : id}`;
}
