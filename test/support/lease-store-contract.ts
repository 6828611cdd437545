import { defaultExpiryTerms } from '../../libs/contracts/index.js';
import { randomBytes } from 'node:crypto';
import type { NewActivation } from '../../services/license/activations/activation-store.js';
import type { NewLicense } from '../../services/license/licenses/license-store.js';
import type { LicenseStores } from '../../services/license/stores.js';
import { newCall, type OpenStores } from '../../bench/support/license-store-fixtures.js';

/**
 * What every implementation of the license store must do with leases and exempt activations
 * (docs/api-decisions.md, "Leases" and "Exempt identifiers"), run against each of them.
 */

const NOW = new Date('2026-06-01T12:00:00.000Z');
const HOUR = 3_600_000;
const later = (ms: number) => new Date(NOW.getTime() + ms);

function newLicense(overrides: Partial<NewLicense> = {}): NewLicense {
  return {
    license_key: `lease-${randomBytes(6).toString('hex')}`,
    product_id: 10,
    plan_id: 1,
    status: 'active',
    expires_at: null,
    auto_renew: false,
    next_payment_at: null,
    activation_type: 'domain',
    activation_limit: 2,
    lease_seconds: 3600,
    exempt_identifiers: ['*.test'],
    exempt_limit: 1,
    ...overrides,
  };
}

const activation = (identifier: string, overrides: Partial<NewActivation> = {}): NewActivation => ({
  identifier,
  name: null,
  ip: '192.0.2.1',
  activated_at: NOW,
  lease_expires_at: later(HOUR),
  exempt: false,
  ...overrides,
});

export function describeLeaseStores(implementation: string, open: OpenStores): void {
  describe(`${implementation}: leases and exempt activations`, () => {
    let opened: Awaited<ReturnType<OpenStores>> | undefined;
    beforeAll(async () => {
      opened = await open();
    });
    afterAll(async () => {
      await opened?.close();
    });
    const stores = (): LicenseStores => opened!.stores;
    const issue = async (overrides: Partial<NewLicense> = {}) => {
      const issued = await stores().licenses.issue({ license: newLicense(overrides), now: NOW });
      if (issued.outcome !== 'issued') throw new Error('not issued');
      return issued.license.license_key;
    };
    const claim = (licenseKey: string, a: NewActivation, now = NOW) =>
      stores().licenses.claimSlot({ licenseKey, activation: a, now });

    test('an issued license keeps its lease and exemption settings; a claim keeps the lease and the exempt flag', async () => {
      const licenseKey = await issue();
      expect(await stores().licenses.findByKey(licenseKey)).toMatchObject({
        lease_seconds: 3600,
        exempt_identifiers: ['*.test'],
        exempt_limit: 1,
        exempt_used: 0,
      });
      const claimed = await claim(licenseKey, activation('a.example'));
      expect(claimed?.activation).toMatchObject({ lease_expires_at: later(HOUR), exempt: false });
      const found = await stores().licenses.findWithActivations({
        licenseKey,
        identifierKeys: ['a.example'],
      });
      expect(found?.activations[0]).toMatchObject({ lease_expires_at: later(HOUR), exempt: false });
    });

    test('an exempt activation takes an exempt slot, not one of the limit; the exempt slots have their own limit', async () => {
      const licenseKey = await issue({ activation_limit: 1 });
      await claim(licenseKey, activation('a.example'));
      const exempt = await claim(licenseKey, activation('shop.test', { exempt: true }));
      expect(exempt?.license).toMatchObject({ activations_used: 1, exempt_used: 1 });
      expect(await claim(licenseKey, activation('dev.test', { exempt: true }))).toBeNull();
      expect(await claim(licenseKey, activation('b.example'))).toBeNull();
      const released = await stores().licenses.releaseSlot({
        licenseKey,
        activation: exempt!.activation,
        now: NOW,
      });
      expect(released?.license).toMatchObject({ activations_used: 1, exempt_used: 0 });
      expect(await claim(licenseKey, activation('dev.test', { exempt: true }))).not.toBeNull();
    });

    test('a lease is renewed only while it has not lapsed', async () => {
      const licenseKey = await issue();
      await claim(licenseKey, activation('a.example'));
      const renew = (now: Date, until: Date) =>
        stores().licenses.renewLease({ licenseKey, identifierKey: 'a.example', now, until });
      expect(await renew(later(HOUR - 1), later(2 * HOUR))).toBe(true);
      expect(await renew(later(2 * HOUR), later(3 * HOUR))).toBe(false);
      expect(
        await stores().licenses.renewLease({
          licenseKey,
          identifierKey: 'nothing.example',
          now: NOW,
          until: later(HOUR),
        }),
      ).toBe(false);
    });

    test('a lapsed activation is not activated for a check or a license file', async () => {
      const licenseKey = await issue({ activation_type: 'domain' });
      await claim(licenseKey, activation('a.example'));
      const check = (at: Date) =>
        stores().licenses.touchCheckIfMatching({
          ...newCall(),
          licenseKey,
          productId: null,
          identifierKeys: { domain: 'a.example' },
          at,
          ip: '::1',
        });
      expect(await check(later(HOUR - 1))).not.toBeNull();
      expect(await check(later(HOUR))).toBeNull();
      expect(
        await stores().licenses.recordCheckout({
          licenseKey,
          identifier: 'a.example',
          at: later(HOUR),
          leaseSeconds: 3600,
          leaseExpiresAt: later(2 * HOUR),
        }),
      ).toBe(false);
    });

    test('a checkout renews the lease it was decided on with its record; on another lease it records nothing', async () => {
      const licenseKey = await issue();
      await claim(licenseKey, activation('a.example'));
      const record = (leaseSeconds: number | null, leaseExpiresAt: Date | null) =>
        stores().licenses.recordCheckout({
          licenseKey,
          identifier: 'a.example',
          at: later(HOUR / 2),
          leaseSeconds,
          leaseExpiresAt,
        });
      const leaseEnd = async () =>
        (await stores().licenses.findWithActivations({ licenseKey, identifierKeys: ['a.example'] }))
          ?.activations[0]?.lease_expires_at;
      // The plan's lease changed since the file was decided on: nothing is written.
      expect(await record(null, null)).toBe(false);
      expect(await record(900, later(HOUR / 2 + 900_000))).toBe(false);
      expect(await leaseEnd()).toEqual(later(HOUR));
      expect(await record(3600, later(HOUR / 2 + HOUR))).toBe(true);
      expect(await leaseEnd()).toEqual(later(HOUR / 2 + HOUR));
    });

    test('lapsed activations are released once each, freeing their slots; live and lease-less ones stay', async () => {
      const licenseKey = await issue({ activation_limit: 3 });
      await claim(licenseKey, activation('a.example'));
      await claim(licenseKey, activation('b.example', { lease_expires_at: later(3 * HOUR) }));
      await claim(licenseKey, activation('shop.test', { exempt: true }));
      await claim(licenseKey, activation('c.example', { lease_expires_at: null }));
      expect(
        await stores().licenses.withLapsedActivations({ now: later(HOUR), limit: 100 }),
      ).toContain(licenseKey);
      const [first, second] = await Promise.all([
        stores().licenses.releaseLapsed({ licenseKey, now: later(HOUR) }),
        stores().licenses.releaseLapsed({ licenseKey, now: later(HOUR) }),
      ]);
      const released = [...first!.released, ...second!.released].map((a) => a.identifier).sort();
      expect(released).toEqual(['a.example', 'shop.test']);
      const license = await stores().licenses.findByKey(licenseKey);
      expect(license).toMatchObject({ activations_used: 2, exempt_used: 0 });
      expect(
        await stores().licenses.withLapsedActivations({ now: later(HOUR), limit: 100 }),
      ).not.toContain(licenseKey);
      expect(await stores().licenses.releaseLapsed({ licenseKey, now: later(HOUR) })).toMatchObject(
        {
          released: [],
        },
      );
      // The freed slot is taken again.
      expect(await claim(licenseKey, activation('d.example'), later(HOUR))).not.toBeNull();
      expect(
        await stores().licenses.releaseLapsed({ licenseKey: 'no-such-key', now: NOW }),
      ).toBeNull();
    });

    test('a lapsed activation of an identifier keeps its key until released; released, it is claimed anew', async () => {
      const licenseKey = await issue();
      await claim(licenseKey, activation('a.example'));
      expect(await claim(licenseKey, activation('a.example'), later(HOUR))).toBeNull();
      await stores().licenses.releaseLapsed({ licenseKey, now: later(HOUR) });
      expect(
        await claim(
          licenseKey,
          activation('a.example', { lease_expires_at: later(2 * HOUR) }),
          later(HOUR),
        ),
      ).not.toBeNull();
    });

    test('a plan change to a plan without a lease clears the leases of the activations', async () => {
      const licenseKey = await issue();
      await claim(licenseKey, activation('a.example'));
      await stores().licenses.changePlan({
        licenseKey,
        now: NOW,
        plan: {
          id: 2,
          activation_type: 'domain',
          activation_limit: 2,
          lease_seconds: null,
          exempt_identifiers: [],
          exempt_limit: 3,
        },
      });
      const found = await stores().licenses.findWithActivations({
        licenseKey,
        identifierKeys: ['a.example'],
      });
      expect(found?.license).toMatchObject({ lease_seconds: null, exempt_identifiers: [] });
      expect(found?.activations[0]?.lease_expires_at).toBeNull();
    });

    test('a plan is updated in what an admin may change', async () => {
      const created = await stores().plans.create({
        now: NOW,
        plan: {
          name: 'Fleet',
          activation_type: 'instance',
          activation_limit: 0,
          lease_seconds: null,
          entitlements: [],
          exempt_identifiers: [],
          exempt_limit: 3,
          max_uses: null,
          uses_reset: 'never',
          ...defaultExpiryTerms,
        },
      });
      if (created.outcome !== 'created') throw new Error('not created');
      const updated = await stores().plans.update({
        id: created.plan.id,
        changes: { lease_seconds: 900, exempt_identifiers: ['ci.*'] },
      });
      if (updated?.outcome !== 'updated') throw new Error('not updated');
      expect(updated.plan).toMatchObject({
        name: 'Fleet',
        lease_seconds: 900,
        exempt_identifiers: ['ci.*'],
        exempt_limit: 3,
      });
      expect(await stores().plans.find(created.plan.id)).toEqual(updated.plan);
      expect(await stores().plans.update({ id: 987_654, changes: { name: 'x' } })).toBeNull();
    });
  });
}
