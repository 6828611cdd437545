import type { z } from 'zod';
import { LicensingError } from '../contracts/index.js';

/**
 * Input validated against a contract schema at the edge: every failure is one 400
 * INVALID_REQUEST naming the field at fault (`bundle_items[2]: ...`, `product_id: ...`).
 */

/** `bundle_items[2]`, `title`; `what` when the issue has no path. */
function fieldName(path: readonly PropertyKey[], what: string): string {
  let name = '';
  for (const part of path) {
    name += typeof part === 'number' ? `[${part}]` : `${name === '' ? '' : '.'}${String(part)}`;
  }
  return name === '' ? what : name;
}

function describe(issue: z.core.$ZodIssue | undefined, what: string): string {
  if (!issue) return `${what}: invalid`;
  const where = fieldName(issue.path, what);
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.join(', ');
    const plural = issue.keys.length > 1 ? 's' : '';
    return issue.path.length === 0
      ? `unknown field${plural}: ${keys}`
      : `${where}: unknown field${plural}: ${keys}`;
  }
  // Zod's own messages start with a capital; ours ("must not be empty") do not.
  const message = issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
  return `${where}: ${message}`;
}

/** The parsed value, or INVALID_REQUEST naming the first field at fault. */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what = 'request body',
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new LicensingError('INVALID_REQUEST', describe(parsed.error.issues[0], what));
  }
  return parsed.data;
}
