import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const FIXTURES = fileURLToPath(new URL('../unit/stores/fixtures/', import.meta.url));

/** A store's event fixture (test/unit/stores/fixtures/<store>/<name>.json), as its bytes. */
export function storeFixture(store: string, name: string): Buffer {
  return readFileSync(`${FIXTURES}${store}/${name}.json`);
}

/**
 * The fixture with its fields at the dotted `path`s set (or, to `undefined`, removed), as the
 * body the store would send.
 */
export function editedFixture(
  store: string,
  name: string,
  ...changes: [path: string, value: unknown][]
): Buffer {
  const event: unknown = JSON.parse(storeFixture(store, name).toString());
  for (const [path, value] of changes) {
    const keys = path.split('.');
    const last = keys.pop()!;
    const parent = keys.reduce<Record<string, unknown>>(
      (node, key) => node[key] as Record<string, unknown>,
      event as Record<string, unknown>,
    );
    if (value === undefined) delete parent[last];
    else parent[last] = value;
  }
  return Buffer.from(JSON.stringify(event));
}
