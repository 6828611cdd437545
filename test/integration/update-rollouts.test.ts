import { createVersion, download, packageBytes, sha256, uploadFile } from '../support/packages.js';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';

/**
 * Release channels and staged rollouts through the real system's JSON update check and download
 * (docs/updaters.md): a version at 10 % reaches about a tenth of 1,000 generated keys, the same
 * key always gets the same answer, and `channel=beta` reaches a beta version.
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
  let keys: string[];
  beforeAll(async () => {
    const first = await system.license();
    productId = first.product.id;
    const v10 = await createVersion(system, productId, '1.0');
    await uploadFile(system, v10.id, packageBytes(100), 'plugin-1.0.zip');
    const v11 = await createVersion(system, productId, '1.1', { rollout_percent: 10 });
    await uploadFile(system, v11.id, packageBytes(100), 'plugin-1.1.zip');
    // One plan, many licenses on it, straight through the license service's RPC.
    const more = await inBatches(Array.from({ length: 999 }), 4, () =>
      system.transport.call('license.createLicense', {
        product_id: productId,
        plan_id: first.plan.id,
        status: 'active',
        expires_at: null,
      }),
    );
    keys = [first.key, ...more.map((l) => l.license_key)];
  }, 300_000);

  const share = (answers: Array<{ version?: string }>) =>
    answers.filter((a) => a.version === '1.1').length / answers.length;

  test.each([
    ['the key alone', (key: string) => `license_key=${key}`],
    [
      'the key and an identifier',
      (key: string) =>
        `license_key=${key}&identifier=site-${key.slice(0, 6).toLowerCase()}.example`,
    ],
  ])(
    'at 10 %%, %s: 7 to 13 %% of 1,000 keys get 1.1, the rest 1.0, and no answer flips',
    async (_, query) => {
      const answers = await inBatches(keys, 8, (key) => quickCheck(productId, query(key)));
      expect(new Set(answers.map((a) => a.version))).toEqual(new Set(['1.0', '1.1']));
      expect(share(answers)).toBeGreaterThanOrEqual(0.07);
      expect(share(answers)).toBeLessThanOrEqual(0.13);
      // Asked again, a sample of the keys (both sides of the rollout) gets the same answers.
      const sample = keys.map((key, i) => ({ key, i })).filter((_, i) => i % 10 === 0);
      for (let round = 0; round < 2; round++) {
        const again = await inBatches(sample, 8, ({ key }) => updateCheck(productId, query(key)));
        expect(again.map((a) => a.version)).toEqual(sample.map(({ i }) => answers[i]!.version));
      }
    },
    300_000,
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
