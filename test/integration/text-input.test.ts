import type { Db } from 'mongodb';
import mongoose from 'mongoose';
import { LICENSE_KEY_PATTERN, type Product } from '../../libs/contracts/index.js';
import { createVersion, uploadFile } from '../support/packages.js';
import { ADMIN_TOKEN, API_BASE, bootSystem, type TestSystem } from '../support/system.js';

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const AUTH = `Bearer ${ADMIN_TOKEN}`;
const FORM = 'application/x-www-form-urlencoded';

let seq = 0;
const unique = () => `${Date.now().toString(36)}${(seq++).toString(36)}`;

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: { error?: { code: string; message: string } };
}

function expectError(res: Answer, status: number, code: string, message?: RegExp) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual({ error: { code, message: expect.any(String) } });
  if (message) expect(res.body.error?.message).toMatch(message);
}

/** A JSON body as sent, byte for byte: `\ud800` stays the escape JSON allows. */
const adminSend = (
  method: 'post' | 'patch',
  path: string,
  json: string,
  type = 'application/json',
) => {
  const admin = system.admin();
  const call = method === 'post' ? admin.post(`/admin/v1${path}`) : admin.patch(`/admin/v1${path}`);
  return call.set('Authorization', AUTH).set('Content-Type', type).send(json);
};

const adminGet = (path: string) =>
  system.admin().get(`/admin/v1${path}`).set('Authorization', AUTH);

const publicForm = (operation: string, body: string, type = FORM) =>
  system.api().post(`${API_BASE}/licenses/${operation}`).set('Content-Type', type).send(body);

const detail = (key: string) => system.transport.call('license.getLicense', { license_key: key });

async function productTitles(): Promise<string[]> {
  const res = await adminGet('/products');
  return (res.body.data.products as Product[]).map((product) => product.title);
}

describe('text is stored as it was answered: unpaired surrogates are refused', () => {
  test('management: a product title with a lone surrogate gets 400 and is not stored', async () => {
    const title = `Lone ${unique()}`;
    const res = await adminSend('post', '/products', `{"title":"${title} a\\ud800b"}`);
    expectError(res, 400, 'INVALID_REQUEST', /^title: must be well-formed Unicode/);
    expect((await productTitles()).filter((t) => t.startsWith(title))).toEqual([]);

    const created = await adminSend('post', '/products', `{"title":"${title}"}`);
    expect(created.status).toBe(201);
    const id = (created.body as { data: Product }).data.id;
    const renamed = await adminSend('patch', `/products/${id}`, `{"title":"b\\udc00"}`);
    expectError(renamed, 400, 'INVALID_REQUEST', /^title: /);
    expect((await adminGet(`/products/${id}`)).body.data.title).toBe(title);
  });

  test('management: a surrogate pair is one character, stored and answered alike', async () => {
    const title = `Grin ${unique()} \\ud83d\\ude00`;
    const created = await adminSend('post', '/products', `{"title":"${title}"}`);
    expect(created.status).toBe(201);
    const answered = (created.body as { data: Product }).data;
    expect(answered.title.endsWith('\u{1F600}')).toBe(true);
    expect((await adminGet(`/products/${answered.id}`)).body.data.title).toBe(answered.title);
  });

  test('management: activation identifiers and names, plan names and webhook descriptions too', async () => {
    const { key, plan } = await system.license({ activation_type: 'device' });
    for (const body of [
      '{"identifier":"pc\\ud800"}',
      '{"identifier":"pc-one","name":"\\udfff office"}',
    ]) {
      const res = await adminSend('post', `/licenses/${key}/activations`, body);
      expectError(res, 400, 'INVALID_REQUEST', /^(identifier|name): must be well-formed/);
    }
    expect((await detail(key)).activations_used).toBe(0);
    expectError(
      await adminSend('patch', `/plans/${plan.id}`, '{"name":"Pro \\ud800"}'),
      400,
      'INVALID_REQUEST',
      /^name: /,
    );
    expectError(
      await adminSend(
        'post',
        '/webhooks',
        '{"url":"https://hooks.example/in","events":["*"],"description":"\\ud800"}',
      ),
      400,
      'INVALID_REQUEST',
      /^description: /,
    );
  });

  test('public: an identifier sent as a percent-encoded surrogate gets 400 and activates nothing', async () => {
    const { key } = await system.license({ activation_type: 'device' });
    for (const identifier of ['%ED%A0%80', 'pc%ED%A0%80one', 'pc%ED%B0%80']) {
      const res = await publicForm('activate', `license_key=${key}&identifier=${identifier}`);
      expectError(res, 400, 'INVALID_REQUEST');
    }
    // The same three bytes sent raw are not UTF-8 either.
    const raw = await fetch(`${system.running.gatewayUrl}${API_BASE}/licenses/activate`, {
      method: 'POST',
      headers: { 'Content-Type': FORM },
      body: Buffer.concat([
        Buffer.from(`license_key=${key}&identifier=pc`),
        Buffer.from([0xed, 0xa0, 0x80]),
      ]),
    });
    expect(raw.status).toBe(400);
    expect(await raw.json()).toEqual({
      error: { code: 'INVALID_REQUEST', message: 'The request body is not valid UTF-8.' },
    });
    expect((await detail(key)).activations_used).toBe(0);

    const ok = await publicForm('activate', `license_key=${key}&identifier=pc-%F0%9F%98%80`);
    expect(ok.status).toBe(200);
    expect((await detail(key)).activations.map((a) => a.identifier)).toEqual(['pc-\u{1F600}']);
  });
  test('management: a package file name that is not UTF-8 gets 400, not U+FFFD', async () => {
    const product = await system.transport.call('update-catalog.createProduct', {
      title: `Files ${unique()}`,
    });
    const version = await createVersion(system, product.id, '1.0.0');
    const path = `${system.running.managementUrl}/admin/v1/versions/${version.id}/files`;
    const boundary = 'text-input-boundary';
    const sendNamed = (disposition: Buffer) =>
      fetch(path, {
        method: 'POST',
        headers: {
          Authorization: AUTH,
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
        },
        body: Buffer.concat([
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; `),
          disposition,
          Buffer.from(`\r\nContent-Type: application/zip\r\n\r\nPK-bytes\r\n--${boundary}--\r\n`),
        ]),
      });
    for (const disposition of [
      Buffer.concat([Buffer.from('filename="p'), Buffer.from([0xff]), Buffer.from('.zip"')]),
      Buffer.concat([
        Buffer.from('filename="p'),
        Buffer.from([0xed, 0xa0, 0x80]),
        Buffer.from('.zip"'),
      ]),
      Buffer.from("filename*=UTF-8''p%ED%A0%80.zip"),
    ]) {
      const res = await sendNamed(disposition);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: { code: 'INVALID_REQUEST', message: 'file: the file name is not valid UTF-8.' },
      });
    }
    const versions = await adminGet(`/products/${product.id}/versions`);
    expect(versions.body.data.versions[0].files).toEqual([]);
    const kept = await uploadFile(
      system,
      version.id,
      Buffer.from('PK-bytes'),
      'Über-\u{1F600}.zip',
    );
    expect(kept.filename).toBe('Über-\u{1F600}.zip');
  });
});

describe('license keys an admin gives', () => {
  test('white space, control characters, . and .. are refused; the alphabet is accepted', async () => {
    const { product, plan } = await system.license();
    const ids = `"product_id":${product.id},"plan_id":${plan.id}`;
    for (const key of ['a\\nb', 'a\\tb', 'has space', '.', '..', 'a/b', 'cl\\u00e9', 'k\\ud800']) {
      const res = await adminSend('post', '/licenses', `{"license_key":"${key}",${ids}}`);
      expectError(res, 400, 'INVALID_REQUEST', /^license_key: must be 1 to 255 characters/);
    }
    const given = `Shop_${unique()}-ABC`;
    const res = await adminSend('post', '/licenses', `{"license_key":"${given}",${ids}}`);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ data: { license_key: given } });

    const generated = await adminSend('post', '/licenses', `{${ids}}`);
    expect(generated.status).toBe(201);
    expect((generated.body as { data: { license_key: string } }).data.license_key).toMatch(
      LICENSE_KEY_PATTERN,
    );
  });

  test('the alphabet is in the OpenAPI document the management API serves', async () => {
    const doc = (await system.admin().get('/openapi.json')).body;
    const schema = doc.paths['/admin/v1/licenses'].post.requestBody.content['application/json']
      .schema as { properties?: Record<string, { pattern?: string; description?: string }> };
    const key = schema.properties?.license_key;
    expect(key?.pattern).toBe(LICENSE_KEY_PATTERN.source);
    expect(key?.description).toMatch(/ASCII letter.*digit.*`-`.*`_`/);
  });

  test('a key stored before the alphabet stays readable, and lookups take any key text', async () => {
    const { key: generated } = await system.license({ activation_type: 'device' });
    const legacy = `legacy a/b c?d#e%f+.${unique()}`;
    const connection = mongoose.connections.find(
      (c) => c.name === `${system.config.MONGODB_DB_PREFIX}_license`,
    );
    const db = connection?.db as Db | undefined;
    if (!db) throw new Error('no connection to the license database');
    await db
      .collection('licenses')
      .updateOne({ license_key: generated }, { $set: { license_key: legacy } });

    const read = await adminGet(`/licenses/${encodeURIComponent(legacy)}`);
    expect(read.status).toBe(200);
    expect(read.body.data.license_key).toBe(legacy);
    const activated = await system.post('activate', { license_key: legacy, identifier: 'pc-one' });
    expect(activated.status).toBe(200);
    const validated = await system.post('validate', { license_key: legacy });
    expect(validated.body.data).toMatchObject({ valid: true, license_key: legacy });

    const unknown = await system.post('validate', { license_key: 'no such key..' });
    expect(unknown.status).toBe(200);
    expect(unknown.body.data).toMatchObject({ valid: false });
    expectError(await adminGet(`/licenses/${encodeURIComponent('..x y')}`), 404, 'NOT_FOUND');
  });
});

describe('charsets: UTF-8 or none, on both surfaces', () => {
  test('public: a form in another charset gets 415 and changes nothing', async () => {
    const { key } = await system.license();
    for (const charset of ['latin1', 'ISO-8859-1', 'windows-1252', 'us-ascii', '"latin1"']) {
      const res = await publicForm(
        'activate',
        `license_key=${key}&identifier=a.example`,
        `${FORM}; charset=${charset}`,
      );
      expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE', /must be UTF-8/);
    }
    expect((await detail(key)).activations_used).toBe(0);
  });

  test('public: no charset, or UTF-8 in any case (as WordPress sends it), is read', async () => {
    const { key } = await system.license();
    for (const type of [
      FORM,
      `${FORM}; charset=UTF-8`,
      `${FORM}; charset=utf-8`,
      `${FORM};charset="UTF-8"`,
      `${FORM}; charset=utf8`,
    ]) {
      const res = await publicForm('validate', `license_key=${key}`, type);
      expect({ type, status: res.status }).toEqual({ type, status: 200 });
    }
  });

  test('management: JSON in another charset gets 415; UTF-8 in any case is read', async () => {
    const title = `Charset ${unique()}`;
    for (const charset of ['latin1', 'ISO-8859-1', 'utf-16']) {
      const res = await adminSend(
        'post',
        '/products',
        `{"title":"${title}"}`,
        `application/json; charset=${charset}`,
      );
      expectError(res, 415, 'UNSUPPORTED_MEDIA_TYPE', /must be UTF-8/);
    }
    expect(await productTitles()).not.toContain(title);
    for (const charset of ['UTF-8', 'utf-8', '"utf-8"']) {
      const res = await adminSend(
        'post',
        '/products',
        `{"title":"${title} ${charset.replace(/"/g, '')}"}`,
        `application/json; charset=${charset}`,
      );
      expect({ charset, status: res.status }).toEqual({ charset, status: 201 });
    }
  });
});
