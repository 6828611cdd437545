import type { PortalLicense } from '../../libs/contracts/index.js';
import { ApiError } from '../../libs/web/ui/api.js';
import { jsonForHtml } from '../../libs/web/web-app.js';
import { NO_STORE } from '../../services/gateway/portal-settings.js';
import {
  freeSlotWords,
  lookUpFailure,
  nextStep,
  noActivationWords,
} from '../../services/gateway/portal/words.js';

/**
 * The customer portal's words (services/gateway/portal/words.ts): what a customer is told about
 * their license and what to do next, and how the portal's settings reach its page.
 */

const NOW = Date.parse('2026-06-01T12:00:00Z');
const STORE = {
  store_name: 'Plugin Shop',
  store_url: 'https://shop.example/',
  renew_url: 'https://shop.example/renew',
  logo: null,
};

function license(overrides: Partial<PortalLicense> = {}): PortalLicense {
  return {
    license_key: 'k',
    status: 'active',
    product: 'Gallery Plugin',
    plan: 'Two sites',
    activation_type: 'domain',
    activation_limit: 2,
    activations_used: 1,
    expires_at: null,
    auto_renew: false,
    next_payment_at: null,
    products: [],
    activations: [],
    lease_seconds: null,
    in_grace: false,
    grace_ends_at: null,
    updates_until: null,
    ...overrides,
  };
}

describe("the portal's next step for a license that cannot be used", () => {
  test('an expired license is renewed at RENEW_URL; without one, with the store', () => {
    expect(nextStep(license({ status: 'expired' }), STORE, NOW)).toEqual({
      text: 'This license has expired. Renew it to use it again and to get updates.',
      link: { href: 'https://shop.example/renew', text: 'Renew your license' },
    });
    // Past its date before the scheduled task marks it: expired all the same.
    expect(nextStep(license({ expires_at: '2026-01-01T00:00:00Z' }), STORE, NOW)?.link?.href).toBe(
      'https://shop.example/renew',
    );
    expect(nextStep(license({ status: 'expired' }), NO_STORE, NOW)).toEqual({
      text:
        'This license has expired. To use it again and get updates, renew it with the store ' +
        'you bought it from.',
      link: null,
    });
  });

  test('a revoked or cancelled license is replaced by a new one from the store', () => {
    expect(nextStep(license({ status: 'revoked' }), STORE, NOW)).toEqual({
      text:
        'This license has been revoked and can no longer be used or renewed. To go on using ' +
        'Gallery Plugin, buy a new license from Plugin Shop.',
      link: { href: 'https://shop.example/', text: 'Buy a new license from Plugin Shop' },
    });
    expect(nextStep(license({ status: 'cancelled' }), NO_STORE, NOW)?.link).toBeNull();
  });

  test('a suspended license is a question for the store; an active one needs no step', () => {
    expect(nextStep(license({ status: 'suspended' }), STORE, NOW)?.text).toMatch(
      /suspended.*Contact Plugin Shop/,
    );
    expect(nextStep(license(), STORE, NOW)).toBeNull();
  });
});

describe("the portal's words for a license its plan keeps past its expiry", () => {
  const EXPIRED = '2026-05-20T00:00:00.000Z';

  test('in grace: it keeps working until the grace ends, and can take activations', () => {
    const inGrace = license({
      expires_at: EXPIRED,
      in_grace: true,
      grace_ends_at: '2026-06-03T00:00:00.000Z',
    });
    expect(nextStep(inGrace, STORE, NOW)).toEqual({
      text:
        'This license has expired and is in grace until 3 June 2026: the software keeps ' +
        'working as before until then. Renew it before then to keep it active.',
      link: { href: 'https://shop.example/renew', text: 'Renew your license' },
    });
    expect(noActivationWords(inGrace, NOW)).toMatch(/ yet\.$/);
    expect(freeSlotWords(inGrace, NOW)).toMatch(/^To move the license/);
  });

  test('past its grace on maintain or restrict: it keeps working, with updates until its expiry', () => {
    const words =
      'This license has expired, but the software keeps working, with the updates released ' +
      'until 20 May 2026.';
    for (const status of ['expired', 'active'] as const) {
      const keptOne = license({ status, expires_at: EXPIRED, updates_until: EXPIRED });
      expect(nextStep(keptOne, STORE, NOW)).toEqual({
        text: `${words} Renew it to get later updates.`,
        link: { href: 'https://shop.example/renew', text: 'Renew your license' },
      });
      expect(nextStep(keptOne, NO_STORE, NOW)).toEqual({
        text: `${words} Renew it with the store you bought it from to get later updates.`,
        link: null,
      });
    }
    // A revoked one is not kept, whatever its plan.
    const revoked = license({ status: 'revoked', expires_at: EXPIRED, updates_until: EXPIRED });
    expect(nextStep(revoked, STORE, NOW)?.text).toMatch(/has been revoked/);
  });
});

describe("the portal's words on activations", () => {
  test('an empty list says "yet" only where an activation could still be made', () => {
    expect(noActivationWords(license(), NOW)).toBe(
      'No website is activated with this license yet.',
    );
    expect(noActivationWords(license({ status: 'cancelled' }), NOW)).toBe(
      'No website is activated with this license.',
    );
    expect(
      noActivationWords(license({ activation_type: 'instance', status: 'expired' }), NOW),
    ).toBe('No instance is activated with this license.');
  });

  test('how to free a slot: deactivate where it is no longer used; a lease frees one by itself', () => {
    expect(freeSlotWords(license({ activations_used: 2 }), NOW)).toBe(
      'Every activation slot is in use. To use the license on another website, first ' +
        'deactivate it on one you no longer use, in the license settings of the software ' +
        'there: that frees its slot.',
    );
    expect(freeSlotWords(license({ lease_seconds: 3600 }), NOW)).toMatch(
      /^To move the license to another website, .* One left unused for 1 hour frees its slot by itself\.$/,
    );
    expect(freeSlotWords(license({ activation_limit: 0 }), NOW)).toBeNull();
    expect(freeSlotWords(license({ activations_used: 0 }), NOW)).toBeNull();
    expect(freeSlotWords(license({ status: 'revoked' }), NOW)).toBeNull();
  });

  test('an unknown key is said as that alone: the portal shows licenses of any status', () => {
    const refused = lookUpFailure(
      new ApiError(403, 'LICENSE_INVALID', 'This license key is not valid.'),
    ) as ApiError;
    expect(refused.message).toBe(
      'No license has this key. Check that it is the whole key you were given with your ' +
        'purchase, with no other characters.',
    );
    expect(refused.message).not.toMatch(/not active/);
    expect(refused.code).toBe('LICENSE_INVALID');
  });
});

describe("the portal's settings in its page", () => {
  test('are JSON in which nothing can close the element or start markup', () => {
    const text = jsonForHtml({ store_name: '</script><script>alert(1)</script> & \u2028' });
    expect(text).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(text)).toEqual({
      store_name: '</script><script>alert(1)</script> & \u2028',
    });
  });
});
