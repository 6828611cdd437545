import type { z } from 'zod';
import { invalidRequest, issueMessage } from '../../contracts/index.js';

/**
 * Input validated against a contract schema at the edge: every failure is one 400
 * INVALID_REQUEST naming the field at fault (`bundle_items[2]: ...`, `product_id: ...`).
 */

/** The parsed value, or INVALID_REQUEST naming the first field at fault. */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what = 'request body',
): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw invalidRequest(issueMessage(parsed.error.issues[0], what));
  }
  return parsed.data;
}
