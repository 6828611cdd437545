import type { LicenseDetail } from '../../libs/contracts/index.js';
import {
  system,
  PAST,
  licensePath,
  expectError,
  createLicense,
  detail,
  post,
  del,
} from '../support/management-api-setup.js';

/** The management API (/admin/v1): an admin's Add and Remove of activations (spec 3.2). */

describe('activations: admin Add (spec 3.2)', () => {
  const add = (key: string, body: unknown) => post(`${licensePath(key)}/activations`, body);

  test('the identifier is normalised like an API call, the IP is empty and 201 shows the license', async () => {
    const license = await createLicense();
    const res = await add(license.license_key, {
      identifier: 'https://WWW.Example.com:8080/path',
      name: 'Added by support',
    });
    expect(res.status).toBe(201);
    const shown = res.body.data as LicenseDetail;
    expect(shown.license_key).toBe(license.license_key);
    expect(shown.activations_used).toBe(1);
    expect(shown.activations).toEqual([
      {
        identifier: 'example.com',
        name: 'Added by support',
        ip: '',
        activated_at: expect.any(String),
        last_checkout_at: null,
        lease_expires_at: null,
        exempt: false,
      },
    ]);
  });

  test('a seat identifier is lowercased and the name is optional', async () => {
    const license = await createLicense({ plan: { activation_type: 'seat' } });
    const res = await add(license.license_key, { identifier: 'Jane.Doe@Example.COM' });
    expect(res.status).toBe(201);
    expect(res.body.data.activations[0]).toMatchObject({
      identifier: 'jane.doe@example.com',
      name: null,
    });
  });

  test('an added activation counts against the limit of the public API', async () => {
    const license = await createLicense({ plan: { activation_limit: 1 } });
    expect((await add(license.license_key, { identifier: 'a.example' })).status).toBe(201);
    const refused = await system.post('activate', {
      license_key: license.license_key,
      identifier: 'b.example',
    });
    expect(refused.body.error).toMatchObject({
      code: 'ACTIVATION_LIMIT_REACHED',
      activation_limit: 1,
      activations_used: 1,
    });
  });

  test('a suspended license refuses with 409 LICENSE_INVALID', async () => {
    const license = await createLicense({ license: { status: 'suspended' } });
    expectError(
      await add(license.license_key, { identifier: 'a.example' }),
      409,
      'LICENSE_INVALID',
    );
  });

  test('a license whose stored status is expired refuses with 409 LICENSE_INVALID (not active)', async () => {
    const license = await createLicense({ license: { status: 'expired', expires_at: PAST } });
    expectError(
      await add(license.license_key, { identifier: 'a.example' }),
      409,
      'LICENSE_INVALID',
    );
    const shown = await detail(license.license_key);
    expect(shown.activations_used).toBe(0);
    expect(shown.rejected_attempts).toEqual([
      expect.objectContaining({ identifier: 'a.example', reason: 'expired', source: 'admin' }),
    ]);
  });

  test('an expired license refuses with 409 LICENSE_EXPIRED', async () => {
    const license = await createLicense({ license: { expires_at: PAST } });
    expectError(
      await add(license.license_key, { identifier: 'a.example' }),
      409,
      'LICENSE_EXPIRED',
    );
  });

  test('a full license refuses with 409 ACTIVATION_LIMIT_REACHED', async () => {
    const license = await createLicense({ plan: { activation_limit: 1 } });
    expect((await add(license.license_key, { identifier: 'a.example' })).status).toBe(201);
    const res = await add(license.license_key, { identifier: 'b.example' });
    expectError(res, 409, 'ACTIVATION_LIMIT_REACHED');
    expect(res.body.error).toMatchObject({ activation_limit: 1, activations_used: 1 });
  });

  test('an identifier already present (after normalisation) refuses with 409 ACTIVATION_EXISTS', async () => {
    const license = await createLicense();
    expect((await add(license.license_key, { identifier: 'example.com' })).status).toBe(201);
    const res = await add(license.license_key, { identifier: 'http://www.EXAMPLE.com/' });
    expectError(res, 409, 'ACTIVATION_EXISTS');
    expect((await detail(license.license_key)).activations_used).toBe(1);
  });

  test('a refused Add is a rejected attempt with the reason the activate call gets, the name sent, and the admin as its source', async () => {
    const full = await createLicense({ plan: { activation_limit: 1 } });
    await add(full.license_key, { identifier: 'a.example' });
    expectError(
      await add(full.license_key, { identifier: 'b.example', name: 'Second shop' }),
      409,
      'ACTIVATION_LIMIT_REACHED',
    );
    expect((await detail(full.license_key)).rejected_attempts).toEqual([
      {
        identifier: 'b.example',
        name: 'Second shop',
        reason: 'limit_reached',
        source: 'admin',
        tries: 1,
        last_attempt_at: expect.any(String),
      },
    ]);
    const expired = await createLicense({ license: { expires_at: PAST } });
    expectError(
      await add(expired.license_key, { identifier: 'b.example' }),
      409,
      'LICENSE_EXPIRED',
    );
    expect((await detail(expired.license_key)).rejected_attempts).toEqual([
      expect.objectContaining({ identifier: 'b.example', reason: 'expired', source: 'admin' }),
    ]);
  });

  test('a domain that normalises to nothing gets 400 INVALID_REQUEST', async () => {
    const license = await createLicense();
    expectError(await add(license.license_key, { identifier: 'https://' }), 400, 'INVALID_REQUEST');
    expect((await detail(license.license_key)).activations_used).toBe(0);
  });

  test('a Unicode spelling is stored in the ASCII form and matches it (spec 2.4)', async () => {
    const license = await createLicense();
    const res = await add(license.license_key, { identifier: 'https://www.Bücher.de/' });
    expect(res.status).toBe(201);
    expect(res.body.data.activations.map((a: { identifier: string }) => a.identifier)).toEqual([
      'xn--bcher-kva.de',
    ]);
    expectError(
      await add(license.license_key, { identifier: 'xn--bcher-kva.de.' }),
      409,
      'ACTIVATION_EXISTS',
    );
  });

  test('a domain that is not a website gets 400 INVALID_REQUEST', async () => {
    const license = await createLicense();
    for (const identifier of ['..', 'javascript:alert(1)', '\u200bexample.com']) {
      expectError(await add(license.license_key, { identifier }), 400, 'INVALID_REQUEST');
    }
    expect((await detail(license.license_key)).activations_used).toBe(0);
  });

  test('an unknown key gets 404 NOT_FOUND', async () => {
    expectError(await add('no-such-key', { identifier: 'a.example' }), 404, 'NOT_FOUND');
  });

  test('a missing identifier or an unknown field gets 400', async () => {
    const license = await createLicense();
    for (const body of [{}, { name: 'x' }, { identifier: 'a.example', ip: '1.2.3.4' }]) {
      expectError(await add(license.license_key, body), 400, 'INVALID_REQUEST');
    }
  });
});

describe('activations: admin Remove (spec 3.2)', () => {
  const remove = (key: string, identifier: string) =>
    del(`${licensePath(key)}/activations/${encodeURIComponent(identifier)}`);

  test('removing frees the slot: a new public activation succeeds', async () => {
    const license = await createLicense({ plan: { activation_limit: 1 } });
    const key = license.license_key;
    expect(
      (await system.post('activate', { license_key: key, identifier: 'a.example' })).status,
    ).toBe(200);
    const res = await remove(key, 'a.example');
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ license_key: key, activations_used: 0, activations: [] });
    expect(
      (await system.post('activate', { license_key: key, identifier: 'b.example' })).status,
    ).toBe(200);
  });

  test('the identifier is normalised like an API call', async () => {
    const license = await createLicense();
    const key = license.license_key;
    await system.post('activate', { license_key: key, identifier: 'example.com' });
    const res = await remove(key, 'https://WWW.Example.com:8080/path');
    expect(res.status).toBe(200);
    expect(res.body.data.activations_used).toBe(0);
  });

  test('an identifier that is not activated gets 404 ACTIVATION_NOT_FOUND', async () => {
    const license = await createLicense();
    expectError(await remove(license.license_key, 'never.example'), 404, 'ACTIVATION_NOT_FOUND');
  });

  test('an unknown key gets 404 NOT_FOUND', async () => {
    expectError(await remove('no-such-key', 'a.example'), 404, 'NOT_FOUND');
  });
});
