import {
  activationError,
  activationRefusedAnswer,
  checkAnswer,
  eddCall,
  eddCaching,
  eddExpires,
  type EddCall,
  type LicenseState,
} from '../../services/gateway/feeds/edd-answers.js';

const call: EddCall = {
  action: 'check_license',
  license_key: 'KEY',
  product_id: 7,
  identifier: 'https://example.com',
};

const state = (overrides: Partial<LicenseState> = {}): LicenseState => ({
  status: 'active',
  product: 'Plugin',
  activation_limit: 3,
  activations_used: 1,
  expires_at: null,
  ...overrides,
});

const validation = (valid: boolean, identifier_activated: boolean, status = 'active') => ({
  ...state({ status: status as LicenseState['status'] }),
  valid,
  license_key: 'KEY',
  plan: 'Plan',
  activation_type: 'domain' as const,
  identifier_activated,
  lease_expires_at: null,
  entitlements: [],
  entitlements_missing: [],
  code: null,
  in_grace: false,
  grace_ends_at: null,
  updates_until: null,
});

describe('EDD requests', () => {
  test('get_version: item_id is the product, beta 1 or true the beta channel', () => {
    expect(eddCall({ edd_action: 'get_version', item_id: '7', beta: '1' })).toEqual({
      action: 'get_version',
      license_key: null,
      product_id: 7,
      identifier: null,
      channel: 'beta',
    });
    expect(eddCall({ edd_action: 'get_version', item_id: '7', beta: '0' })).toMatchObject({
      channel: 'stable',
    });
    expect(eddCall({ edd_action: 'get_version', item_id: '7', beta: 'true' })).toMatchObject({
      channel: 'beta',
    });
  });

  test("PHP's false (0 or empty) names no item; get_version needs one", () => {
    expect(
      eddCall({ edd_action: 'check_license', license: 'K', item_id: '0' }).product_id,
    ).toBeNull();
    expect(() => eddCall({ edd_action: 'get_version', item_id: '' })).toThrow(/item_id/);
    expect(() => eddCall({ edd_action: 'get_version', item_id: 'x1' })).toThrow(/item_id/);
  });

  test('license actions need the license; activate and deactivate the url', () => {
    expect(() => eddCall({ edd_action: 'activate_license', url: 'https://a.b' })).toThrow(
      /license/,
    );
    expect(() => eddCall({ edd_action: 'deactivate_license', license: 'K' })).toThrow(/url/);
    expect(eddCall({ edd_action: 'check_license', license: ' K ' }).license_key).toBe('K');
  });
});

describe('EDD answers', () => {
  test("expires: 'lifetime' or Y-m-d H:i:s in UTC", () => {
    expect(eddExpires(null)).toBe('lifetime');
    expect(eddExpires('2027-01-02T03:04:05+02:00')).toBe('2027-01-02 01:04:05');
  });

  test('activation errors, by refusal and status', () => {
    expect(activationError('PRODUCT_MISMATCH', state())).toBe('invalid_item_id');
    expect(activationError('ACTIVATION_LIMIT_REACHED', state())).toBe('no_activations_left');
    expect(activationError('LICENSE_EXPIRED', state())).toBe('expired');
    expect(activationError('LICENSE_INVALID', state({ status: 'expired' }))).toBe('expired');
    expect(activationError('LICENSE_INVALID', state({ status: 'invalid' }))).toBe('missing');
    expect(activationError('LICENSE_INVALID', state({ status: 'suspended' }))).toBe('disabled');
    expect(activationError('LICENSE_INVALID', state({ status: 'revoked' }))).toBe('revoked');
    expect(activationError('LICENSE_INVALID', state({ status: 'cancelled' }))).toBe('revoked');
  });

  test('a refused activation: success false, license invalid, max_sites at the limit', () => {
    const answer = activationRefusedAnswer(
      'ACTIVATION_LIMIT_REACHED',
      state({ activations_used: 3 }),
      call,
    );
    expect(answer).toMatchObject({
      success: false,
      license: 'invalid',
      error: 'no_activations_left',
      max_sites: 3,
      item_id: 7,
      item_name: 'Plugin',
      expires: 'lifetime',
      license_limit: 3,
      site_count: 3,
      activations_left: 0,
    });
    expect(answer.checksum).toMatch(/^[0-9a-f]{32}$/);
  });

  test('unlimited activations are "unlimited"; no item is item_id false', () => {
    const answer = checkAnswer(
      { ...validation(true, true), activation_limit: 0 },
      { ...call, product_id: null },
    );
    expect(answer).toMatchObject({ activations_left: 'unlimited', item_id: false });
  });

  test('check_license: valid, site_inactive, the unusable statuses, invalid_item_id', () => {
    expect(checkAnswer(validation(true, true), call)).toMatchObject({
      success: true,
      license: 'valid',
    });
    expect(checkAnswer(validation(true, false), call)).toMatchObject({
      success: false,
      license: 'site_inactive',
    });
    expect(checkAnswer(validation(true, false), { ...call, identifier: null }).license).toBe(
      'valid',
    );
    expect(checkAnswer(validation(false, false, 'expired'), call).license).toBe('expired');
    expect(checkAnswer(validation(false, false, 'invalid'), call).license).toBe('invalid');
    expect(checkAnswer(validation(false, false, 'revoked'), call).license).toBe('disabled');
    expect(checkAnswer({ mismatch: state() }, call)).toMatchObject({
      success: false,
      license: 'invalid_item_id',
    });
  });
});

describe('eddCaching: which answers of EDD\'s API may be kept (docs/updaters.md, "Caching")', () => {
  const version = eddCall({ edd_action: 'get_version', item_id: '7', license: 'KEY' });
  test('get_version by GET is revalidated as every feed is', () => {
    expect(eddCaching('get', version)).toBe('revalidate');
  });
  test('get_version by POST, which no HTTP cache keeps, is no-store', () => {
    expect(eddCaching('post', version)).toBe('no-store');
  });
  test.each(['activate_license', 'check_license', 'deactivate_license'] as const)(
    '%s is no-store by GET and by POST',
    (action) => {
      expect(eddCaching('get', { ...call, action })).toBe('no-store');
      expect(eddCaching('post', { ...call, action })).toBe('no-store');
    },
  );
});
