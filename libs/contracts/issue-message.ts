import type { z } from 'zod';

/** `bundle_items[2]`, `title`; `what` when the issue has no path. */
function fieldName(path: readonly PropertyKey[], what: string): string {
  let name = '';
  for (const part of path) {
    name += typeof part === 'number' ? `[${part}]` : `${name === '' ? '' : '.'}${String(part)}`;
  }
  return name === '' ? what : name;
}

/**
 * A zod issue as the message of an INVALID_REQUEST: the field at fault, then what is wrong with
 * it (`bundle_items[2]: must not be empty`; `what` when the issue names no field).
 */
export function issueMessage(issue: z.core.$ZodIssue | undefined, what: string): string {
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
