import { z } from 'zod';
import { DEFAULT_PER_PAGE, IdText, MAX_PAGE, MAX_PER_PAGE } from '../../../libs/contracts/index.js';

/** The fields admin routes share: a record's id in the path, paged queries, a PATCH body. */

/** A record named by its id in the path. */
export const IdPath = z.object({ id: IdText });

/** An empty query field counts as absent: a client may send the field's text, empty or none. */
export const absentIfEmpty = <T extends z.ZodType>(schema: T) =>
  z.preprocess(
    (value: z.input<T> | '' | undefined) => (value === '' ? undefined : value),
    schema.optional(),
  );

/**
 * `page` and `per_page` of a paged query. Absent, they take the defaults of the RPC contract,
 * which also bounds them.
 */
export const pageFields = (items: string) => ({
  page: absentIfEmpty(IdText).meta({
    description: `From 1, at most ${MAX_PAGE.toLocaleString('en-US')}.`,
  }),
  per_page: absentIfEmpty(IdText).meta({
    description: `${items} per page, at most ${MAX_PER_PAGE} (default ${DEFAULT_PER_PAGE}).`,
  }),
});

/** A PATCH that changes nothing is a client mistake, not a no-op. */
export function nonEmptyPatch<T extends z.ZodObject>(schema: T) {
  return schema.refine((value) => Object.keys(value).length > 0, {
    message: 'must change at least one field',
  });
}
