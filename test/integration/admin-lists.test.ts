import type request from 'supertest';
import type { LicenseDetail, LicenseSummary } from '../../libs/contracts/index.js';
import { readLicenseFile } from '../../libs/signatures/index.js';
import { EXPORT_BATCH } from '../../services/management/route-makers/exports.js';
import { csvRecords, parseCsv } from '../support/csv.js';
import { API_BASE, adminOf, bootSystem, unique, type TestSystem } from '../support/system.js';

/**
 * Lists an admin works with, through real HTTP and the real transport: customers and metadata on
 * licenses (set, normalised, searched, never shown to clients), the orders of the license list
 * and the download log, the log's date range, CSV exports of more than one batch, and bulk
 * changes of licenses with good and bad keys mixed.
 */

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const { get, post, patch } = adminOf(() => system);

function expectError(res: request.Response, status: number, code: string) {
  expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status, code });
}

async function productAndPlan() {
  const product = await system.transport.call('update-catalog.createProduct', {
    title: `Product ${unique()}`,
  });
  const plan = await system.transport.call('license.createPlan', {
    name: `Plan ${unique()}`,
    activation_type: 'domain',
    activation_limit: 3,
  });
  return { product, plan };
}

async function issue(body: Record<string, unknown>): Promise<LicenseDetail> {
  const { product, plan } = await productAndPlan();
  const res = await post('/licenses', { product_id: product.id, plan_id: plan.id, ...body });
  expect(res.status).toBe(201);
  return res.body.data as LicenseDetail;
}

const licensePath = (key: string) => `/licenses/${encodeURIComponent(key)}`;
const keysOf = (res: request.Response) =>
  (res.body.data.licenses as LicenseSummary[]).map((license) => license.license_key);

describe('customers and metadata on licenses', () => {
  test('are kept when a license is issued, the e-mail address normalised, and shown in its detail and the list', async () => {
    const id = unique();
    const license = await issue({
      customer: { email: `  Lena.${id}@Bücher.DE `, name: 'Lena Meyer' },
      metadata: { order_id: `ORD-${id}`, crm: 'Kunde 7' },
    });
    expect(license.customer).toEqual({ email: `lena.${id}@xn--bcher-kva.de`, name: 'Lena Meyer' });
    expect(license.metadata).toEqual({ order_id: `ORD-${id}`, crm: 'Kunde 7' });
    const listed = await get(`/licenses?q=${encodeURIComponent(license.license_key)}`);
    expect(listed.body.data.licenses[0]).toMatchObject({
      customer: license.customer,
      metadata: license.metadata,
    });
    const plain = await issue({});
    expect(plain).toMatchObject({ customer: null, metadata: {} });
  });

  test('a PATCH changes them: metadata replaced whole, a customer of null removed; neither touches the rest', async () => {
    const license = await issue({
      customer: { email: 'old@example.com' },
      metadata: { order_id: 'A-1', crm: 'C-1' },
      expires_at: '2030-01-01T00:00:00Z',
    });
    const changed = await patch(licensePath(license.license_key), {
      customer: { email: 'NEW@example.com', name: 'New Owner' },
      metadata: { invoice: 'I-9' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({
      customer: { email: 'new@example.com', name: 'New Owner' },
      metadata: { invoice: 'I-9' },
      expires_at: '2030-01-01T00:00:00.000Z',
      status: 'active',
    });
    const cleared = await patch(licensePath(license.license_key), { customer: null, metadata: {} });
    expect(cleared.body.data).toMatchObject({ customer: null, metadata: {} });
  });

  test.each([
    ['an address without @', { customer: { email: 'jane.example.com' } }, 'customer.email'],
    ['an address with two @', { customer: { email: 'a@b@example.com' } }, 'customer.email'],
    [
      'an address without a domain name',
      { customer: { email: 'jane@localhost' } },
      'customer.email',
    ],
    [
      'white space in an address',
      { customer: { email: 'jane doe@example.com' } },
      'customer.email',
    ],
    [
      'an address of 255 characters',
      {
        customer: {
          email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(58)}.com`,
        },
      },
      'customer.email',
    ],
    [
      'a part before the @ of 65 characters',
      { customer: { email: `${'a'.repeat(65)}@example.com` } },
      'customer.email',
    ],
    ['an empty name', { customer: { email: 'jane@example.com', name: ' ' } }, 'customer.name'],
    [
      'an unpaired surrogate in a name',
      { customer: { email: 'jane@example.com', name: 'a\ud800b' } },
      'customer.name',
    ],
    ['a key with a dot', { metadata: { 'order.id': '1' } }, 'metadata'],
    ['a key starting with $', { metadata: { $set: '1' } }, 'metadata'],
    ['a key starting with _', { metadata: { _private: '1' } }, 'metadata'],
    ['a key of 41 characters', { metadata: { [`k${'e'.repeat(40)}`]: '1' } }, 'metadata'],
    ['an empty value', { metadata: { order_id: '' } }, 'metadata'],
    ['a value over 255 characters', { metadata: { order_id: 'x'.repeat(256) } }, 'metadata'],
    ['an unpaired surrogate in a value', { metadata: { order_id: 'a\udc00' } }, 'metadata'],
    ['a value that is not text', { metadata: { order_id: 7 } }, 'metadata'],
    [
      'more than 50 keys',
      { metadata: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v'])) },
      'metadata',
    ],
  ])(
    '%s is refused with INVALID_REQUEST naming the field, and nothing changes',
    async (_, body, field) => {
      const license = await issue({ metadata: { kept: 'yes' } });
      const res = await patch(licensePath(license.license_key), body);
      expectError(res, 400, 'INVALID_REQUEST');
      expect(res.body.error.message).toContain(field);
      const after = await get(licensePath(license.license_key));
      expect(after.body.data).toMatchObject({ customer: null, metadata: { kept: 'yes' } });
      const { product, plan } = await productAndPlan();
      expectError(
        await post('/licenses', { product_id: product.id, plan_id: plan.id, ...body }),
        400,
        'INVALID_REQUEST',
      );
    },
  );

  test('50 keys of 40 characters with values of 255 characters, and an address of 254, are accepted', async () => {
    const metadata = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`k${String(i).padStart(39, '0')}`, 'é'.repeat(255)]),
    );
    const email = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    const license = await issue({ metadata, customer: { email } });
    expect(Object.keys(license.metadata)).toHaveLength(50);
    expect(license.customer?.email).toHaveLength(254);
  });

  test("the search finds a license by its customer's address in any spelling, and by a metadata value under any key", async () => {
    const id = unique();
    const license = await issue({
      customer: { email: `jane.${id}@example.com` },
      metadata: { order_id: `ORD-${id}`, invoice: `INV-${id}` },
    });
    for (const q of [
      `Jane.${id}@EXAMPLE.com`,
      ` jane.${id}@example.com `,
      `ORD-${id}`,
      `INV-${id}`,
    ]) {
      const res = await get(`/licenses?q=${encodeURIComponent(q)}`);
      expect({ q, keys: keysOf(res) }).toEqual({ q, keys: [license.license_key] });
    }
    // A part of a value or an address, or a key's name, finds nothing.
    for (const q of [`ORD-${id.slice(0, -1)}`, 'order_id', `jane.${id}`, `ord-${id}`]) {
      expect(keysOf(await get(`/licenses?q=${encodeURIComponent(q)}`))).toEqual([]);
    }
  });

  test('the public API, its signed answers, license files and the portal never show them', async () => {
    const id = unique();
    const secrets = [`hidden.${id}@example.com`, `Hidden Name ${id}`, `ORD-${id}`, 'order_id'];
    const license = await issue({
      customer: { email: secrets[0], name: secrets[1] },
      metadata: { order_id: secrets[2] },
    });
    const key = license.license_key;
    const answers: Array<{ what: string; res: request.Response }> = [];
    const api = system.api();
    const form = (path: string, fields: Record<string, string | number>) =>
      api.post(`${API_BASE}${path}`).type('form').send(fields);
    answers.push({
      what: 'activate',
      res: await form('/licenses/activate', { license_key: key, identifier: 'hidden.example' }),
    });
    answers.push({
      what: 'validate',
      res: await form('/licenses/validate', { license_key: key, identifier: 'hidden.example' }),
    });
    const checkout = await form('/licenses/checkout', {
      license_key: key,
      identifier: 'hidden.example',
      product_id: license.product_id,
      ttl: 3600,
    });
    answers.push({ what: 'checkout', res: checkout });
    answers.push({ what: 'portal', res: await form('/portal/license', { license_key: key }) });
    answers.push({
      what: 'update check',
      res: await api.get(`${API_BASE}/updates/${license.product_id}?license_key=${key}`),
    });
    answers.push({
      what: 'download',
      res: await api
        .get(`${API_BASE}/downloads/${license.product_id}?dlid=${key}`)
        .set('Accept', 'application/json'),
    });
    answers.push({
      what: 'deactivate',
      res: await form('/licenses/deactivate', { license_key: key, identifier: 'hidden.example' }),
    });
    expect(answers.map(({ what, res }) => [what, res.status])).toEqual([
      ['activate', 200],
      ['validate', 200],
      ['checkout', 200],
      ['portal', 200],
      ['update check', 200],
      ['download', 404],
      ['deactivate', 200],
    ]);
    const file = readLicenseFile(checkout.body.data.license_file as string);
    const shown = [
      ...answers.map(({ res }) => res.text + JSON.stringify(res.headers)),
      JSON.stringify(file),
    ].join('\n');
    for (const secret of secrets) expect(shown).not.toContain(secret);
    // The admin sees them.
    expect((await get(licensePath(key))).text).toContain(secrets[2]);
  });
});

describe('the order of the license list', () => {
  let product: number;
  const keys: Record<string, string> = {};
  beforeAll(async () => {
    const { product: created, plan } = await productAndPlan();
    product = created.id;
    const licenses: Array<[string, Record<string, unknown>]> = [
      ['first', { expires_at: '2031-01-01T00:00:00Z', customer: { email: 'b@example.com' } }],
      ['second', { expires_at: null }],
      ['third', { expires_at: '2030-01-01T00:00:00Z', customer: { email: 'a@example.com' } }],
    ];
    for (const [name, body] of licenses) {
      const res = await post('/licenses', {
        product_id: product,
        plan_id: plan.id,
        license_key: `${name}-${unique()}`,
        ...body,
      });
      keys[name] = res.body.data.license_key;
    }
  });
  const sorted = async (sort: string) =>
    keysOf(await get(`/licenses?product_id=${product}&sort=${sort}`));

  test('newest first unless sorted: -created_at is the default', async () => {
    expect(await sorted('-created_at')).toEqual([keys.third, keys.second, keys.first]);
    expect(keysOf(await get(`/licenses?product_id=${product}`))).toEqual(
      await sorted('-created_at'),
    );
    expect(await sorted('created_at')).toEqual([keys.first, keys.second, keys.third]);
  });

  test('by expiry, a license that never expires first ascending, last descending', async () => {
    expect(await sorted('expires_at')).toEqual([keys.second, keys.third, keys.first]);
    expect(await sorted('-expires_at')).toEqual([keys.first, keys.third, keys.second]);
  });

  test('by key and by customer e-mail, a license without a customer first ascending', async () => {
    expect(await sorted('license_key')).toEqual([keys.first, keys.second, keys.third]);
    expect(await sorted('-license_key')).toEqual([keys.third, keys.second, keys.first]);
    expect(await sorted('customer_email')).toEqual([keys.second, keys.third, keys.first]);
    expect(await sorted('-customer_email')).toEqual([keys.first, keys.third, keys.second]);
  });

  test('a sort that is not on the list is refused', async () => {
    for (const sort of ['product_id', 'last_check_at', 'expires', '+expires_at', '--created_at']) {
      expectError(await get(`/licenses?sort=${encodeURIComponent(sort)}`), 400, 'INVALID_REQUEST');
      expectError(
        await get(`/exports/licenses?sort=${encodeURIComponent(sort)}`),
        400,
        'INVALID_REQUEST',
      );
    }
  });
});

describe('CSV exports', () => {
  const many = EXPORT_BATCH + 37;
  let product: number;
  beforeAll(async () => {
    const { product: created, plan } = await productAndPlan();
    product = created.id;
    for (let start = 0; start < many; start += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, many - start) }, (_, i) =>
          system.transport.call('license.createLicense', {
            product_id: product,
            plan_id: plan.id,
            license_key: `exp-${String(start + i).padStart(4, '0')}-${unique()}`,
            customer: { email: `buyer${start + i}@example.com`, name: `=Buyer, "${start + i}"` },
          }),
        ),
      );
    }
  }, 120_000);

  test('the licenses of a search, more than one batch of them: a header row, then each license once, in its order', async () => {
    const res = await get(`/exports/licenses?product_id=${product}&sort=-license_key`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="licenses-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.csv"$/,
    );
    expect(res.headers['cache-control']).toBe('no-store');
    const rows = parseCsv(res.text);
    expect(rows[0]).toEqual([
      'license_key',
      'customer_email',
      'customer_name',
      'product',
      'plan',
      'status',
      'activations_used',
      'activation_limit',
      'expires_at',
      'created_at',
      'last_check_at',
    ]);
    const records = csvRecords(res.text);
    expect(records).toHaveLength(many);
    const keys = records.map((record) => record.license_key!);
    expect(new Set(keys).size).toBe(many);
    expect(keys).toEqual([...keys].sort().reverse());
    // The same licenses, in the same order, as the search's pages.
    const pages = await Promise.all(
      [1, 2].map((page) =>
        get(`/licenses?product_id=${product}&sort=-license_key&per_page=500&page=${page}`),
      ),
    );
    expect(pages.flatMap(keysOf)).toEqual(keys);
    // A name that a spreadsheet would read as a formula is inert; its comma and quotes survive.
    const first = records.find((record) => record.customer_email === 'buyer0@example.com');
    expect(first).toMatchObject({
      customer_name: `'=Buyer, "0"`,
      status: 'active',
      expires_at: '',
    });
  });

  test('the export keeps to the search: a customer found by address, nothing when nothing matches', async () => {
    const found = await get(`/exports/licenses?q=${encodeURIComponent('BUYER7@example.com')}`);
    expect(csvRecords(found.text).map((record) => record.customer_email)).toEqual([
      'buyer7@example.com',
    ]);
    const none = await get(`/exports/licenses?q=no-such-thing-${unique()}`);
    expect(none.status).toBe(200);
    expect(parseCsv(none.text)).toHaveLength(1);
  });

  test('the download log of a date range, more than one batch of it, in its order', async () => {
    const before = new Date(Date.now() - 60_000).toISOString();
    const logged = EXPORT_BATCH + 11;
    const { product: logProduct } = await productAndPlan();
    for (let start = 0; start < logged; start += 100) {
      await Promise.all(
        Array.from({ length: Math.min(100, logged - start) }, (_, i) =>
          system.transport.call('download.logRefusal', {
            entry_id: null,
            product_id: logProduct.id,
            license_key: `LOG-${String(start + i).padStart(4, '0')}`,
            identifier: null,
            ip: '203.0.113.9',
            reason: 'LICENSE_INVALID',
          }),
        ),
      );
    }
    const after = new Date(Date.now() + 60_000).toISOString();
    const range = `from=${encodeURIComponent(before)}&to=${encodeURIComponent(after)}`;
    const res = await get(
      `/exports/download-log?product_id=${logProduct.id}&${range}&sort=license_key`,
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-disposition']).toMatch(/filename="download-log-.+\.csv"/);
    expect(parseCsv(res.text)[0]).toEqual([
      'at',
      'product_id',
      'product',
      'outcome',
      'reason',
      'license_key',
      'identifier',
      'ip',
      'version',
    ]);
    const records = csvRecords(res.text);
    expect(records).toHaveLength(logged);
    expect(records.map((record) => record.license_key)).toEqual(
      Array.from({ length: logged }, (_, i) => `LOG-${String(i).padStart(4, '0')}`),
    );
    expect(records[0]).toMatchObject({
      product_id: String(logProduct.id),
      product: logProduct.title,
      outcome: 'refused',
      reason: 'LICENSE_INVALID',
      identifier: '',
      version: '',
    });
    // A range that ends before these entries holds none of them.
    const earlier = await get(
      `/exports/download-log?product_id=${logProduct.id}&to=${encodeURIComponent(before)}`,
    );
    expect(csvRecords(earlier.text)).toEqual([]);
  });

  test('a key and an identifier sent to the download route come out inert, whatever the separator a spreadsheet splits at', async () => {
    const { product: logProduct } = await productAndPlan();
    const dlid = `K;=HYPERLINK("http://evil.example","open")`;
    const identifier = 'shop.example;@SUM(1+1)\n-2';
    const refused = await system
      .api()
      .get(`${API_BASE}/downloads/${logProduct.id}`)
      .query({ dlid, identifier })
      .set('Accept', 'application/json');
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const res = await get(`/exports/download-log?product_id=${logProduct.id}`);
    expect(csvRecords(res.text)).toEqual([
      expect.objectContaining({
        license_key: `K;'=HYPERLINK("http://evil.example","open")`,
        identifier: "shop.example;'@SUM(1+1)\n'-2",
      }),
    ]);
    // A reader whose list separator is `;` starts a cell at each one, quotes or not.
    const cells = res.text.split(/[;\r\n]/);
    expect(cells.filter((cell) => /^"*[=+\-@]/.test(cell))).toEqual([]);
  });
});

describe('the download log: a date range and an order', () => {
  let product: number;
  beforeAll(async () => {
    const { product: created } = await productAndPlan();
    product = created.id;
    for (const key of ['B', 'A', null, 'C']) {
      await system.transport.call('download.logRefusal', {
        entry_id: null,
        product_id: product,
        license_key: key,
        identifier: null,
        ip: '203.0.113.9',
        reason: 'LICENSE_INVALID',
      });
    }
  });
  const listed = async (query: string) => {
    const res = await get(`/download-log?product_id=${product}&${query}`);
    expect(res.status).toBe(200);
    return (res.body.data.entries as Array<{ license_key: string | null }>).map(
      (e) => e.license_key,
    );
  };

  test('by license key either way, entries without a key first ascending; by time, newest first by default', async () => {
    expect(await listed('sort=license_key')).toEqual([null, 'A', 'B', 'C']);
    expect(await listed('sort=-license_key')).toEqual(['C', 'B', 'A', null]);
    expect(await listed('')).toEqual(await listed('sort=-at'));
    expect(await listed('sort=at')).toEqual([...(await listed('sort=-at'))].reverse());
  });

  test('a date range holds the entries from its start to its end', async () => {
    const hour = 3_600_000;
    const iso = (offset: number) => encodeURIComponent(new Date(Date.now() + offset).toISOString());
    expect(await listed(`from=${iso(-hour)}&to=${iso(hour)}`)).toHaveLength(4);
    expect(await listed(`from=${iso(hour)}`)).toEqual([]);
    expect(await listed(`to=${iso(-hour)}`)).toEqual([]);
  });

  test('a range that ends before it starts, a date without an offset, or an unknown sort is refused', async () => {
    const now = new Date().toISOString();
    for (const query of [
      `from=${encodeURIComponent(now)}&to=${encodeURIComponent(now)}`,
      'from=2026-06-01',
      'from=2026-06-01T00:00:00',
      'sort=ip',
    ]) {
      expectError(await get(`/download-log?${query}`), 400, 'INVALID_REQUEST');
      expectError(await get(`/exports/download-log?${query}`), 400, 'INVALID_REQUEST');
    }
  });
});

describe('bulk changes of licenses', () => {
  const bulk = (body: unknown) => post('/licenses/bulk-changes', body);

  test('a status change for good and bad keys: each good one changed, each bad one refused in words, in the order named', async () => {
    const a = await issue({});
    const b = await issue({ status: 'suspended' });
    const missing = `no-such-${unique()}`;
    const res = await bulk({
      action: 'set_status',
      status: 'revoked',
      license_keys: [a.license_key, missing, b.license_key],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      results: [
        {
          license_key: a.license_key,
          ok: true,
          license: expect.objectContaining({ status: 'revoked' }),
        },
        {
          license_key: missing,
          ok: false,
          error: { code: 'NOT_FOUND', message: expect.any(String) },
        },
        {
          license_key: b.license_key,
          ok: true,
          license: expect.objectContaining({ status: 'revoked' }),
        },
      ],
      succeeded: 2,
      failed: 1,
    });
    expect(res.body.data.results[0].license).not.toHaveProperty('activations');
    expect((await get(licensePath(b.license_key))).body.data.status).toBe('revoked');
  });

  test('an expiry extended by days moves each expiry by that much; a license that never expires is refused', async () => {
    const a = await issue({ expires_at: '2030-01-01T00:00:00Z' });
    const never = await issue({});
    const past = await issue({ expires_at: '2020-01-01T00:00:00Z', status: 'expired' });
    const res = await bulk({
      action: 'extend_expiry',
      days: 30,
      license_keys: [a.license_key, never.license_key, past.license_key],
    });
    expect(res.body.data.results.map((r: { ok: boolean }) => r.ok)).toEqual([true, false, true]);
    expect(res.body.data.results[1].error.code).toBe('INVALID_REQUEST');
    expect((await get(licensePath(a.license_key))).body.data.expires_at).toBe(
      '2030-01-31T00:00:00.000Z',
    );
    // As a PATCH of the date would, the extension leaves the status alone.
    expect((await get(licensePath(past.license_key))).body.data).toMatchObject({
      expires_at: '2020-01-31T00:00:00.000Z',
      status: 'expired',
    });
    expect((await get(licensePath(never.license_key))).body.data.expires_at).toBeNull();
  });

  test('an expiry set to a date, or to never', async () => {
    const a = await issue({ expires_at: '2030-01-01T00:00:00Z' });
    const b = await issue({});
    const set = await bulk({
      action: 'set_expiry',
      expires_at: '2032-02-29T12:00:00Z',
      license_keys: [a.license_key, b.license_key],
    });
    expect(set.body.data).toMatchObject({ succeeded: 2, failed: 0 });
    expect((await get(licensePath(b.license_key))).body.data.expires_at).toBe(
      '2032-02-29T12:00:00.000Z',
    );
    await bulk({ action: 'set_expiry', expires_at: null, license_keys: [a.license_key] });
    expect((await get(licensePath(a.license_key))).body.data.expires_at).toBeNull();
  });

  test('a request out of bounds is refused whole, and changes nothing', async () => {
    const a = await issue({});
    const keys = (n: number) => Array.from({ length: n }, (_, i) => `k-${i}`);
    for (const body of [
      { action: 'set_status', status: 'revoked', license_keys: [] },
      { action: 'set_status', status: 'revoked', license_keys: [a.license_key, ...keys(100)] },
      { action: 'set_status', status: 'revoked', license_keys: [a.license_key, a.license_key] },
      { action: 'set_status', status: 'gone', license_keys: [a.license_key] },
      { action: 'delete', license_keys: [a.license_key] },
      { action: 'extend_expiry', days: 0, license_keys: [a.license_key] },
      { action: 'extend_expiry', days: 3661, license_keys: [a.license_key] },
      { action: 'extend_expiry', days: 1.5, license_keys: [a.license_key] },
      { action: 'set_status', status: 'revoked', license_keys: [a.license_key], extra: 1 },
    ]) {
      expectError(await bulk(body), 400, 'INVALID_REQUEST');
    }
    expect((await get(licensePath(a.license_key))).body.data.status).toBe('active');
    const hundred = await bulk({
      action: 'set_status',
      status: 'suspended',
      license_keys: [a.license_key, ...keys(99)],
    });
    expect(hundred.body.data).toMatchObject({ succeeded: 1, failed: 99 });
  });
});
