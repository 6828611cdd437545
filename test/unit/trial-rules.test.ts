import { defaultExpiryTerms } from '../../libs/contracts/plans/plan-expiry.js';
import type { PlanRecord } from '../../services/license/records.js';
import {
  decideTrial,
  endsTrial,
  trialAlreadyUsed,
  trialExpiry,
  trialIdentifierKey,
  trialKey,
  trialProductsOf,
} from '../../services/license/trials/trial-rules.js';
import {
  PLAN_DEFAULTS,
  abandoned,
  service,
  waiting,
  waitingCall,
} from '../support/license-handler-harness.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;

const plan: PlanRecord = {
  id: 900,
  name: 'Trial',
  activation_type: 'domain',
  activation_limit: 1,
  lease_seconds: null,
  exempt_identifiers: [],
  exempt_limit: 3,
  trial_days: 14,
  max_uses: null,
  uses_reset: 'never',
  entitlements: [],
  ...defaultExpiryTerms,
  created_at: NOW,
};
const product = { id: 50, title: 'Trial app', bundle_items: [], trial_plan_id: 900 };
const asked = { product, plan, identifier: 'https://www.Example.com/x', email: null, now: NOW };

describe('decideTrial: which product offers a trial, and what the trial license takes', () => {
  test('a trial ends trial_days after it starts', () => {
    expect(trialExpiry(NOW, 14)).toEqual(new Date(NOW.getTime() + 14 * DAY));
    const decision = decideTrial(asked);
    expect(decision).toMatchObject({
      ok: true,
      expiresAt: new Date(NOW.getTime() + 14 * DAY),
      identifier: { identifier: 'example.com', key: 'example.com' },
      customer: null,
    });
  });

  test.each([
    ['no product', { product: null }],
    ['a product without a trial plan', { product: { ...product, trial_plan_id: null } }],
    [
      'a product of the catalog before trials',
      { product: { id: 50, title: 'A', bundle_items: [] } },
    ],
    ['a trial plan that is missing', { plan: null }],
    ['a trial plan without trial_days', { plan: { ...plan, trial_days: null } }],
    ['a plan other than the one the product names', { plan: { ...plan, id: 901 } }],
  ])('PRODUCT_MISMATCH for %s', (_what, change) => {
    const decision = decideTrial({ ...asked, ...change });
    expect(decision).toMatchObject({ ok: false, refusal: { code: 'PRODUCT_MISMATCH' } });
  });

  test("the identifier is normalised for the plan's activation type (spec 2.4)", () => {
    const seat = decideTrial({
      ...asked,
      plan: { ...plan, activation_type: 'seat' },
      identifier: 'A@B.example',
    });
    expect(seat).toMatchObject({ ok: true, identifier: { identifier: 'a@b.example' } });
    const empty = decideTrial({ ...asked, identifier: 'https://' });
    expect(empty).toMatchObject({ ok: false, refusal: { code: 'INVALID_REQUEST' } });
  });

  test("the buyer's address is kept normalised as the customer, and refused when it is none", () => {
    expect(decideTrial({ ...asked, email: 'Buyer@Example.COM' })).toMatchObject({
      ok: true,
      customer: { email: 'buyer@example.com', name: null },
    });
    expect(decideTrial({ ...asked, email: 'nope' })).toMatchObject({
      ok: false,
      refusal: { code: 'INVALID_REQUEST', message: expect.stringMatching(/^email: /) },
    });
  });

  test('a second trial is TRIAL_ALREADY_USED', () => {
    expect(trialAlreadyUsed().refusal.code).toBe('TRIAL_ALREADY_USED');
  });
});

describe('trialIdentifierKey: the spellings of one identifier are one for the one-trial rule', () => {
  const key = trialIdentifierKey('ABC-DEF-123');
  test.each([
    ['letter case (spec 2.4)', 'abc-def-123'],
    [
      'full-width letters, digits and hyphen (NFKC)',
      '\uff21\uff22\uff23\uff0d\uff24\uff25\uff26-\uff11\uff12\uff13',
    ],
    ['the hyphen U+2010', 'ABC\u2010DEF\u2010123'],
    ['the non-breaking hyphen U+2011', 'ABC\u2011DEF\u2011123'],
    ['en and em dashes', 'ABC\u2013DEF\u2014123'],
    ['the minus sign U+2212', 'ABC\u2212DEF\u2212123'],
    ['a zero width space after it (Cf)', 'ABC-DEF-123\u200b'],
    [
      'a soft hyphen, a word joiner and a byte order mark inside it',
      'AB\u00adC-D\u2060EF-12\ufeff3',
    ],
    ['a variation selector (default-ignorable)', 'ABC-DEF-123\ufe0f'],
  ])('%s', (_what, spelling) => {
    expect(trialIdentifierKey(spelling)).toBe(key);
  });

  test('is abc-def-123 for ABC-DEF-123, and taken again is itself', () => {
    expect(key).toBe('abc-def-123');
    for (const spelling of ['\uff21\uff22\uff23', 'Stra\u00dfe\u2010\u0130', 'e\u200b\u0301']) {
      const once = trialIdentifierKey(spelling);
      expect(trialIdentifierKey(once)).toBe(once);
    }
  });

  test('other identifiers stay apart: another character, a space, an underscore', () => {
    for (const other of ['ABC-DEF-124', 'ABC DEF 123', 'ABC_DEF_123', 'ABCDEF123']) {
      expect([other, trialIdentifierKey(other)]).not.toEqual([other, key]);
    }
  });

  test("the trial key is the product's and the identifier's: another product's trial is its own", () => {
    expect(trialKey(50, 'ＡＢＣ-DEF-123')).toBe(trialKey(50, 'abc\u2010def-123'));
    expect(trialKey(50, 'ABC-DEF-123')).not.toBe(trialKey(51, 'ABC-DEF-123'));
  });

  test('a trial carries the key; an identifier of invisible characters only is refused', () => {
    const device = { ...plan, activation_type: 'device' as const };
    const decision = decideTrial({ ...asked, plan: device, identifier: ' ＡＢＣ‐DEF-123\u200b ' });
    expect(decision).toMatchObject({
      ok: true,
      identifier: { identifier: 'ＡＢＣ‐DEF-123\u200b' },
      trialKey: '50:abc-def-123',
    });
    for (const identifier of ['\u200b', '\u200b \u2060']) {
      expect(decideTrial({ ...asked, plan: device, identifier })).toMatchObject({
        ok: false,
        refusal: { code: 'INVALID_REQUEST', message: expect.stringMatching(/invisible/) },
      });
    }
  });
});

describe('endsTrial: a paid license activated on the identifier ends the trial', () => {
  const open = { license_key: 'trial-key', converted_at: null };
  test('another license that is not a trial ends an open trial', () => {
    expect(endsTrial(open, { license_key: 'paid', isTrial: false })).toBe(true);
  });
  test('the trial license itself, another trial license, or a converted trial: no', () => {
    expect(endsTrial(open, { license_key: 'trial-key', isTrial: true })).toBe(false);
    expect(endsTrial(open, { license_key: 'other-trial', isTrial: true })).toBe(false);
    expect(endsTrial({ ...open, converted_at: NOW }, { license_key: 'paid', isTrial: false })).toBe(
      false,
    );
  });
  test("a bundle's activation may end a trial of each of its items", () => {
    expect(trialProductsOf({ id: 20, title: 'B', bundle_items: [10, 30] })).toEqual([20, 10, 30]);
  });
});

describe('the trial handlers', () => {
  async function trialService(activationType: PlanRecord['activation_type'] = 'domain') {
    const s = service();
    await s.handlers['license.createPlan'](
      {
        ...PLAN_DEFAULTS,
        id: 900,
        name: 'Trial',
        activation_type: activationType,
        activation_limit: 1,
        trial_days: 14,
      },
      waiting,
    );
    const start = (identifier: string, context = waitingCall()) =>
      s.handlers['license.startTrial'](
        { product_id: 50, identifier, email: 'buyer@example.com', ip: '198.51.100.7' },
        context,
      );
    return { ...s, start };
  }

  test('a trial started is trial.started and license.created, with no address in either', async () => {
    const s = await trialService();
    const started = await s.start('shop.example');
    const [event] = s.events.ofType('trial.started');
    expect(event?.data).toEqual({
      license_key: started.license_key,
      product_id: 50,
      plan_id: 900,
      identifier: 'shop.example',
      started_at: NOW.toISOString(),
      expires_at: started.expires_at,
    });
    expect(s.events.ofType('license.created')).toHaveLength(1);
    expect(JSON.stringify(s.events.published)).not.toContain('buyer@');
  });

  test('the same call delivered again answers the trial it started; another call is refused', async () => {
    const s = await trialService();
    const call = waitingCall();
    const first = await s.start('shop.example', call);
    expect(await s.start('shop.example', call)).toEqual(first);
    expect(s.events.ofType('trial.started')).toHaveLength(1);
    await expect(s.start('SHOP.example')).rejects.toMatchObject({ code: 'TRIAL_ALREADY_USED' });
  });

  test('a device trial written another way is refused; the identifier is kept as sent', async () => {
    const s = await trialService('device');
    const first = await s.start('ＡＢＣ-ＤＥＦ-１２３');
    expect(first.activation.identifier).toBe('ＡＢＣ-ＤＥＦ-１２３');
    for (const spelling of ['ABC-DEF-123', 'ABC\u2010DEF\u2010123', 'ABC-DEF-123\u200b']) {
      await expect(s.start(spelling)).rejects.toMatchObject({ code: 'TRIAL_ALREADY_USED' });
    }
  });

  test('a caller that stopped waiting starts nothing', async () => {
    const s = await trialService();
    await expect(s.start('shop.example', abandoned)).rejects.toMatchObject({
      code: 'INTERNAL_ERROR',
    });
    expect(
      (
        await s.handlers['license.listTrials'](
          { product_id: null, converted: null, page: 1, per_page: 10 },
          waiting,
        )
      ).total,
    ).toBe(0);
  });

  test('a paid activation converts the trial once: trial.converted, the trial license cancelled', async () => {
    const s = await trialService();
    const trial = await s.start('shop.example');
    const paid = await s.license({ product_id: 50 });
    await s.activate({ license_key: paid, identifier: 'www.shop.example' });
    await s.activate({ license_key: paid, identifier: 'shop.example' });
    const [converted] = s.events.ofType('trial.converted');
    expect(converted?.data).toMatchObject({
      license_key: trial.license_key,
      converted_license_key: paid,
      converted_at: NOW.toISOString(),
    });
    expect(s.events.ofType('trial.converted')).toHaveLength(1);
    expect((await s.detail(trial.license_key)).status).toBe('cancelled');
  });

  test("the trial license's own activation, or a paid license of another product, converts nothing", async () => {
    const s = await trialService();
    const trial = await s.start('shop.example');
    await s.activate({ license_key: trial.license_key, identifier: 'shop.example' });
    const other = await s.license({ product_id: 11 });
    await s.activate({ license_key: other, identifier: 'shop.example' });
    expect(s.events.ofType('trial.converted')).toHaveLength(0);
    expect((await s.detail(trial.license_key)).status).toBe('active');
  });
});
