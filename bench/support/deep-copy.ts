/**
 * A deep copy of a plain record (objects, arrays, dates), as a database hands back. Not
 * `structuredClone`: under Jest it makes dates of another realm, which `expect.any(Date)` and
 * `instanceof Date` do not recognise.
 */
export function deepCopy<T>(value: T): T {
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) return value.map(deepCopy) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, deepCopy(item)]),
    ) as T;
  }
  return value;
}
