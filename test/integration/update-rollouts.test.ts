import { createVersion, download, packageBytes, sha256, uploadFile } from '../support/packages.js';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';
import { isInRollout, rolloutBucket } from '../../services/update-catalog/audience.js';

/** Licenses on the product: enough for both sides of every rollout below, quick to create. */
const KEYS = 80;

/**
 * Release channels and staged rollouts through the real system's JSON update check and download
 * (docs/updaters.md): each key gets the version its rollout bucket says, the same on every
 * request, and `channel=beta` reaches a beta version.
 */

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

/** Runs `work` over `items` with at most `limit` at a time, in order of the answers. */
async function inBatches<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>) {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

type Answer = { update_available: boolean; version?: string; sha256: string | null };

/** The update check, its answer checked against the OpenAPI document. */
const updateCheck = async (productId: number, query: string) => {
  const res = await system.api().get(`${API_BASE}/updates/${productId}?${query}`);
  expect(res.status).toBe(200);
  return (res.body as { data: Answer }).data;
};

/** The update check as an updater sends it, for the many calls whose shape is checked above. */
const quickCheck = async (productId: number, query: string) => {
  const res = await fetch(`${system.running.gatewayUrl}${API_BASE}/updates/${productId}?${query}`);
  const body = (await res.json()) as { data: Answer };
  expect([res.status, body]).toEqual([200, body]);
  return body.data;
};

describe('docs/updaters.md: staged rollouts through the JSON update check', () => {
  let productId: number;
  let v11: number;
  let keys: string[];
  beforeAll(async () => {
    const first = await system.license();
    productId = first.product.id;
    const v10 = await createVersion(system, productId, '1.0');
    await uploadFile(system, v10.id, packageBytes(100), 'plugin-1.0.zip');
    v11 = (await createVersion(system, productId, '1.1', { rollout_percent: 10 })).id;
    await uploadFile(system, v11, packageBytes(100), 'plugin-1.1.zip');
    // One plan, more licenses on it, straight through the license service's RPC.
    const more = await inBatches(Array.from({ length: KEYS - 1 }), 4, () =>
      system.transport.call('license.createLicense', {
        product_id: productId,
        plan_id: first.plan.id,
        status: 'active',
        expires_at: null,
      }),
    );
    keys = [first.key, ...more.map((l) => l.license_key)];
  }, 120_000);

  /**
   * What the rule says each key gets at `percent` % (test/unit/release-audience.test.ts checks the
   * rule's figures over 1,000 keys): the system must answer exactly that, key by key.
   */
  const predicted = (percent: number, identifier: (key: string) => string | null) =>
    keys.map((key) => (isInRollout(percent, rolloutBucket(key, identifier(key))) ? '1.1' : '1.0'));

  const site = (key: string) => `site-${key.slice(0, 6)}.example`;

  test.each([
    ['the key alone', (key: string) => `license_key=${key}`, () => null],
    [
      'the key and an identifier, normalised as spec 2.4 says',
      (key: string) => `license_key=${key}&identifier=${site(key).toUpperCase()}`,
      (key: string) => site(key),
    ],
  ])(
    'at 10 %% and then 50 %%, %s: each key gets what its bucket says, and no answer flips',
    async (_, query, identifier) => {
      for (const percent of [10, 50]) {
        await system.transport.call('update-catalog.updateVersion', {
          id: v11,
          rollout_percent: percent,
        });
        const expected = predicted(percent, identifier);
        for (let round = 0; round < 2; round++) {
          const answers = await inBatches(keys, 4, (key) => quickCheck(productId, query(key)));
          expect(answers.map((a) => a.version)).toEqual(expected);
        }
      }
      // Raising the rollout only added callers: every key in at 10 % is in at 50 %.
      const at10 = predicted(10, identifier);
      const at50 = predicted(50, identifier);
      expect(at10.every((v, i) => v === '1.0' || at50[i] === '1.1')).toBe(true);
    },
    120_000,
  );

  test('a caller without a key gets only the fully rolled-out version', async () => {
    expect((await updateCheck(productId, '')).version).toBe('1.0');
  });
});

describe('docs/updaters.md: release channels', () => {
  test('channel=beta reaches a beta version on the update check and on the download', async () => {
    const { product, key } = await system.license();
    const stable = await createVersion(system, product.id, '2.0');
    const stableBytes = packageBytes(300);
    await uploadFile(system, stable.id, stableBytes, 'app-2.0.zip');
    const beta = await createVersion(system, product.id, '2.1-beta1', { channel: 'beta' });
    const betaBytes = packageBytes(300);
    await uploadFile(system, beta.id, betaBytes, 'app-2.1-beta1.zip');

    expect((await updateCheck(product.id, `license_key=${key}`)).version).toBe('2.0');
    const betaAnswer = await updateCheck(product.id, `license_key=${key}&channel=beta`);
    expect(betaAnswer).toMatchObject({ version: '2.1-beta1', sha256: sha256(betaBytes) });
    // A dev caller sees only dev builds: there are none.
    expect((await updateCheck(product.id, `license_key=${key}&channel=dev`)).update_available).toBe(
      false,
    );

    const plain = await download(system, product.id, { license_key: key });
    expect([plain.status, plain.sha256]).toEqual([200, sha256(stableBytes)]);
    const betaDownload = await download(system, product.id, { license_key: key, channel: 'beta' });
    expect([betaDownload.status, betaDownload.sha256]).toEqual([200, sha256(betaBytes)]);
  });
});
