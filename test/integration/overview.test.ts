import type { Overview } from '../../libs/contracts/index.js';
import { AUTH, createVersion, packageBytes, uploadFile } from '../support/packages.js';
import { API_BASE, bootSystem, type TestSystem } from '../support/system.js';

/**
 * The admin overview through the whole system: a day of client calls through the real gateway
 * and transport (activations, a rejected activation, a deactivation, validations, downloads
 * served and refused), then `GET /admin/v1/overview`, whose figures must equal what the day did,
 * as the download log and the license itself also show it.
 */

let system: TestSystem;

beforeAll(async () => {
  system = await bootSystem();
}, 60_000);
afterAll(() => system?.stop());

const today = () => new Date().toISOString().slice(0, 10);

async function overview(query: string): Promise<Overview> {
  const res = await system.admin().get(`/admin/v1/overview?${query}`).set(AUTH);
  expect([res.status, res.body]).toEqual([200, expect.anything()]);
  return res.body.data as Overview;
}

/** A download through the gateway; its status, once the body has been read. */
async function download(productId: number, query: string): Promise<number> {
  const response = await fetch(
    `${system.running.gatewayUrl}${API_BASE}/downloads/${productId}?${query}`,
    { headers: { Accept: 'application/json' } },
  );
  await response.arrayBuffer();
  return response.status;
}

describe('a scripted day, counted', () => {
  const DAY = 24 * 60 * 60 * 1000;
  let plugin: { id: number };
  let theme: { id: number };
  let key: string;

  beforeAll(async () => {
    const first = await system.license({
      activation_limit: 2,
      expires_at: new Date(Date.now() + 10 * DAY).toISOString(),
    });
    plugin = first.product;
    key = first.key;
    const second = await system.license({ activation_limit: 5 });
    theme = second.product;
    await uploadFile(
      system,
      (await createVersion(system, plugin.id, '1.0.0')).id,
      packageBytes(64),
    );
    await uploadFile(system, (await createVersion(system, theme.id, '1.0.0')).id, packageBytes(64));

    const post = (operation: 'activate' | 'validate' | 'deactivate', fields: object) =>
      system.post(operation, { license_key: key, ...fields });
    // Two activations; the same one again (no new activation); a third refused on a full license.
    await post('activate', { identifier: 'one.example' }).expect(200);
    await post('activate', { identifier: 'two.example' }).expect(200);
    await post('activate', { identifier: 'one.example' }).expect(200);
    await post('activate', { identifier: 'three.example' }).expect(403);
    // Three validations of the license, two of them checks (spec 4.2 rule 3), and one of a key
    // that does not exist.
    await post('validate', { identifier: 'one.example', product_id: plugin.id }).expect(200);
    await post('validate', { identifier: 'elsewhere.example' }).expect(200);
    await post('validate', {}).expect(200);
    await system.post('validate', { license_key: 'no-such-key' }).expect(200);
    await post('deactivate', { identifier: 'one.example' }).expect(200);
    // Two downloads served and one refused for the plugin; one served for the theme.
    expect(await download(plugin.id, `dlid=${key}`)).toBe(200);
    expect(await download(plugin.id, `dlid=${key}&identifier=two.example`)).toBe(200);
    expect(await download(plugin.id, 'dlid=no-such-key')).toBe(403);
    expect(await download(theme.id, `dlid=${second.key}`)).toBe(200);
    await system
      .post('activate', { license_key: second.key, identifier: 'theme.example' })
      .expect(200);
  }, 60_000);

  test("the product's day: what the calls did, each counted once", async () => {
    const answer = await overview(`product_id=${plugin.id}`);
    expect(answer.product_id).toBe(plugin.id);
    expect(answer.days).toBe(30);
    expect(answer.series).toHaveLength(30);
    expect(answer.series[29]).toEqual({
      day: today(),
      activations: 2,
      deactivations: 1,
      validations: 2,
      rejected_activations: 1,
      downloads_served: 2,
      downloads_refused: 1,
    });
    expect(answer.series.slice(0, 29).every((day) => day.activations === 0)).toBe(true);
    expect(answer.today).toEqual({
      day: today(),
      rejected_activations: 1,
      downloads_served: 2,
      downloads_refused: 1,
    });
    expect(answer.current).toEqual({
      active_licenses: 1,
      activations_in_use: 1,
      expiring_in_30_days: 1,
      trials_started: 0,
      trials_converted: 0,
    });
  });

  test('the counts equal the download log and the license as stored', async () => {
    const answer = await overview(`product_id=${plugin.id}`);
    const log = await system
      .admin()
      .get(`/admin/v1/download-log?product_id=${plugin.id}&per_page=100`)
      .set(AUTH);
    const entries = log.body.data.entries as Array<{ outcome: string }>;
    expect(answer.today.downloads_served).toBe(
      entries.filter((e) => e.outcome === 'served').length,
    );
    expect(answer.today.downloads_refused).toBe(
      entries.filter((e) => e.outcome === 'refused').length,
    );
    const detail = await system.admin().get(`/admin/v1/licenses/${key}`).set(AUTH);
    expect(answer.current.activations_in_use).toBe(detail.body.data.activations_used);
    // A validation is a check of spec 4.2 rule 3; the one with an identifier that is not
    // activated is neither.
    expect(answer.series[29]!.validations).toBe(detail.body.data.check_count);
    expect(answer.today.rejected_activations).toBe(
      (detail.body.data.rejected_attempts as Array<{ tries: number }>).reduce(
        (sum, attempt) => sum + attempt.tries,
        0,
      ),
    );
  });

  test('every product: the sum of the products; 90 days on asking', async () => {
    const answer = await overview('days=90');
    expect(answer.product_id).toBeNull();
    expect(answer.series).toHaveLength(90);
    expect(answer.series[89]).toMatchObject({
      day: today(),
      activations: 3,
      downloads_served: 3,
      downloads_refused: 1,
    });
    expect(answer.current.active_licenses).toBe(2);
    const theirs = await overview(`product_id=${theme.id}`);
    expect(theirs.series[29]).toMatchObject({
      activations: 1,
      downloads_served: 1,
      validations: 0,
    });
  });

  test('days other than 30 or 90, or a product id that is not one, are refused with INVALID_REQUEST', async () => {
    for (const query of ['days=7', 'days=thirty', 'product_id=0', 'product_id=abc']) {
      const res = await system.admin().get(`/admin/v1/overview?${query}`).set(AUTH);
      expect([query, res.status, res.body.error.code]).toEqual([query, 400, 'INVALID_REQUEST']);
    }
  });
});
