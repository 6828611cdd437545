import { z } from 'zod';
import type { ErrorCode } from './errors.js';

/**
 * What the HTTP surfaces (the public API and the management API) accept and answer around the
 * RPC payloads: the spec's envelopes (section 1 and 7) and the parsers of text input. Routes
 * validate with these and their OpenAPI documents are generated from them.
 */

const POSITIVE_INTEGER = 'must be a positive integer';

/**
 * A positive integer id as text (a path segment, a query or form field, a multipart field):
 * plain decimal digits, no sign, no leading zero, at most 2^53 - 1. The one parser of ids that
 * arrive as text.
 */
export const IdText = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/, POSITIVE_INTEGER)
  .transform(Number)
  .refine(Number.isSafeInteger, POSITIVE_INTEGER)
  .meta({ description: 'A positive integer, in decimal digits.' });

/** `true`/`false` (or `1`/`0`) as text, from a query string or a multipart field. */
export const BooleanText = z
  .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
  .transform((value) => value === 'true' || value === '1');

/** Spec 1: a success body is an object with one key, `data`, holding the payload. */
export function dataEnvelope<T extends z.ZodType>(data: T) {
  return z.strictObject({ data });
}

const count = z.number().int().nonnegative();

/**
 * Spec 7: `{"error": {"code", "message", ...}}`. The codes a response can carry are listed, so the
 * document says which ones a client may meet; ACTIVATION_LIMIT_REACHED (and the admin API's
 * ACTIVATION_LIMIT_TOO_LOW) add integer `activation_limit` and `activations_used`; an answer
 * whose errors carry more fields names them in `details`.
 */
export function errorEnvelope(codes: readonly [ErrorCode, ...ErrorCode[]], details?: z.ZodObject) {
  const error = z.strictObject({
    code: z.enum(codes),
    message: z.string(),
    activation_limit: count.optional(),
    activations_used: count.optional(),
  });
  return z.strictObject({ error: details ? error.extend(details.shape) : error });
}
