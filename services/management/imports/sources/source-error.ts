/**
 * A source that cannot be read at all (a header without the columns it needs, a file whose
 * quoting breaks, an API that refuses the token): the reader stops with this, its message in
 * plain words for the seller, after the records it has already yielded.
 */
export class ImportSourceError extends Error {
  override name = 'ImportSourceError';
}
