/** A MongoDB query filter, as the query-shape tests read it. */
export type Filter = Record<string, unknown>;

/** Every combination of one branch of `a` with one branch of `b`. */
const cross = (a: string[][], b: string[][]) => a.flatMap((x) => b.map((y) => [...x, ...y]));

/**
 * The branches of a filter in disjunctive normal form, each as the fields it puts a condition
 * on: `$and` combines the branches of its parts, `$or` adds up its alternatives'. `$expr`, a
 * condition between a document's own fields, is checked on the documents the rest selects, so it
 * adds no field; any other top-level operator is one these tests do not read, and throws.
 */
export function filterBranches(filter: Filter): string[][] {
  let result: string[][] = [[]];
  for (const [key, value] of Object.entries(filter)) {
    if (key === '$and') {
      for (const part of value as Filter[]) result = cross(result, filterBranches(part));
    } else if (key === '$or') {
      result = cross(result, (value as Filter[]).flatMap(filterBranches));
    } else if (key === '$expr') {
      continue;
    } else if (key.startsWith('$')) {
      throw new Error(`The filter uses ${key}, which this test does not read.`);
    } else {
      result = result.map((fields) => [...fields, key]);
    }
  }
  return result;
}
