import {
  classifyResult,
  isLicenseProblem,
  isTransientFailure,
  LicensingClient,
} from '../../libs/client/src/index.js';
import { bootSystem, type TestSystem } from '../support/system.js';

/** The client against the real system, booted in this process. */
let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const clientFor = (productId: number) => new LicensingClient(system.running.gatewayUrl, productId);

describe('spec 4.1 activate through the client', () => {
  test('returns success with the activation payload and the normalised identifier; the name is sent', async () => {
    const { key, product, plan } = await system.license({ activation_limit: 2 });
    const result = await clientFor(product.id).activate(
      key,
      'https://www.Example.com/shop',
      'Main',
    );
    expect(result).toEqual({
      success: true,
      data: {
        status: 'active',
        license_key: key,
        product: product.title,
        plan: plan.name,
        activation_type: 'domain',
        activation_limit: 2,
        activations_used: 1,
        expires_at: null,
        identifier: 'example.com',
        lease_expires_at: null,
        entitlements: [],
        in_grace: false,
        grace_ends_at: null,
        updates_until: null,
      },
      message: '',
      code: '',
      httpStatus: 200,
    });
    const detail = await system.transport.call('license.getLicense', { license_key: key });
    expect(detail.activations).toEqual([
      expect.objectContaining({ identifier: 'example.com', name: 'Main' }),
    ]);
  });

  test('ACTIVATION_LIMIT_REACHED is a license problem and carries activation_limit and activations_used', async () => {
    const { key, product } = await system.license({ activation_limit: 1 });
    const client = clientFor(product.id);
    await client.activate(key, 'a.com');
    const result = await client.activate(key, 'b.com');
    expect(result).toMatchObject({
      success: false,
      data: null,
      code: 'ACTIVATION_LIMIT_REACHED',
      httpStatus: 403,
      details: { activation_limit: 1, activations_used: 1 },
    });
    expect(result.message).not.toBe('');
    expect(isLicenseProblem(result)).toBe(true);
  });

  test('an unknown key is LICENSE_INVALID, an expired one LICENSE_EXPIRED: both license problems', async () => {
    const { key, product } = await system.license({ expires_at: '2020-01-01T00:00:00.000Z' });
    const client = clientFor(product.id);
    const unknown = await client.activate('0123456789abcdef0123456789abcdef', 'a.com');
    expect(unknown).toMatchObject({ success: false, code: 'LICENSE_INVALID' });
    const expired = await client.activate(key, 'a.com');
    expect(expired).toMatchObject({ success: false, code: 'LICENSE_EXPIRED' });
    expect([unknown, expired].map(classifyResult)).toEqual(['license', 'license']);
  });

  test('the product id the client was built with binds the call: another product gets PRODUCT_MISMATCH', async () => {
    const { key } = await system.license();
    const other = await system.license();
    const result = await clientFor(other.product.id).activate(key, 'a.com');
    expect(result).toMatchObject({ success: false, code: 'PRODUCT_MISMATCH', httpStatus: 403 });
  });

  test('INVALID_REQUEST (an identifier that normalises to nothing) is a failure, not a license verdict', async () => {
    const { key, product } = await system.license();
    const result = await clientFor(product.id).activate(key, 'https://');
    expect(result).toMatchObject({ success: false, code: 'INVALID_REQUEST', httpStatus: 400 });
    expect(classifyResult(result)).toBe('failure');
  });
});

describe('spec 4.2 validate through the client', () => {
  test('a valid license with an activated identifier is ok', async () => {
    const { key, product } = await system.license();
    const client = clientFor(product.id);
    await client.activate(key, 'example.com');
    const result = await client.validate(key, 'www.example.com');
    expect(result).toMatchObject({
      success: true,
      data: { valid: true, status: 'active', identifier_activated: true, activations_used: 1 },
      message: '',
      code: '',
    });
    expect(classifyResult(result)).toBe('ok');
    const bare = await client.validate(key);
    expect(bare).toMatchObject({ success: true, data: { identifier_activated: true } });
  });

  test('an unknown key answers success with valid false: a license problem', async () => {
    const { product } = await system.license();
    const result = await clientFor(product.id).validate('unknown-key', 'example.com');
    expect(result).toMatchObject({
      success: true,
      data: { valid: false, status: 'invalid', identifier_activated: false },
    });
    expect(isLicenseProblem(result)).toBe(true);
  });

  test('an identifier that is not activated is a license problem for the software on it', async () => {
    const { key, product } = await system.license();
    const result = await clientFor(product.id).validate(key, 'elsewhere.com');
    expect(result).toMatchObject({
      success: true,
      data: { valid: true, identifier_activated: false },
    });
    expect(classifyResult(result)).toBe('license');
  });
});

describe('spec 4.3 deactivate through the client', () => {
  test('frees the slot and answers with the license state; a second call is ACTIVATION_NOT_FOUND', async () => {
    const { key, product } = await system.license({ activation_limit: 1 });
    const client = clientFor(product.id);
    await client.activate(key, 'a.com');
    const result = await client.deactivate(key, 'https://a.com/');
    expect(result).toMatchObject({
      success: true,
      data: { identifier: 'a.com', activations_used: 0 },
      message: '',
      code: '',
    });
    expect((await client.activate(key, 'b.com')).success).toBe(true);
    const again = await client.deactivate(key, 'a.com');
    expect(again).toMatchObject({ success: false, code: 'ACTIVATION_NOT_FOUND', data: null });
  });
});

describe('spec 8 limits: RATE_LIMITED from the gateway', () => {
  let limited: TestSystem;
  beforeAll(async () => {
    limited = await bootSystem({ RATE_LIMIT_ACTIVATIONS_PER_KEY_PER_HOUR: '1' });
  });
  afterAll(() => limited?.stop());

  test('is transient and exposes the Retry-After seconds on the result', async () => {
    const { key, product } = await limited.license();
    const client = new LicensingClient(limited.running.gatewayUrl, product.id);
    expect((await client.activate(key, 'a.com')).success).toBe(true);
    const result = await client.activate(key, 'a.com');
    expect(result).toMatchObject({ success: false, code: 'RATE_LIMITED', httpStatus: 429 });
    expect(result.success === false && result.retryAfter).toBeGreaterThan(0);
    expect(isTransientFailure(result)).toBe(true);
    expect(isLicenseProblem(result)).toBe(false);
  });
});
