import { randomUUID } from 'node:crypto';
import { RECENT_CHECKS } from '../../services/license/activations/activation-store.js';
import type { NewLicense } from '../../services/license/licenses/license-store.js';
import { activationBytes } from '../../services/license/licenses/mongo-license-documents.js';
import { MAX_ACTIVATION_BYTES } from '../../services/license/records.js';
import {
  DAY,
  EARLIER,
  LATER,
  NOW,
  NO_LEASE_CHECKOUT,
  activation,
  identifiersOf,
  issueLicense,
  newCall,
  newLicense,
  releaseIdentifier,
  uniqueKey,
  withOpened,
  withStores,
  type OpenStores,
} from '../../bench/support/license-store-fixtures.js';

/**
 * What every implementation of the license store must do with a license's activations
 * (services/license/activations/activation-store.ts): counted checks, claims and releases, license files,
 * run against each of them with the same body.
 */
export function describeActivationStore(implementation: string, open: OpenStores): void {
  describe(`${implementation}: licenses (spec 2.2)`, () => {
    const stores = withStores(open);
    const issue = (overrides: Partial<NewLicense> = {}) => issueLicense(stores(), overrides);

    describe('spec 4.2 rule 3: checks', () => {
      test('a check sets last_check_at and last_check_ip and increments check_count', async () => {
        const { license_key } = await issue();
        const at = new Date(NOW);
        const count = (check: { at: Date; ip: string }) =>
          stores().licenses.touchCheckIfMatching({
            ...newCall(),
            licenseKey: license_key,
            productId: null,
            identifierKeys: null,
            ...check,
          });
        await count({ at, ip: '203.0.113.9' });
        at.setTime(0);
        await count({ at: LATER, ip: '::1' });
        expect(await stores().licenses.findByKey(license_key)).toMatchObject({
          last_check_at: LATER,
          last_check_ip: '::1',
          check_count: 2,
        });
      });

      test('a check if matching counts when the product and the activated identifier match, and returns the license', async () => {
        const { license_key } = await issue({ activation_type: 'seat' });
        await stores().licenses.claimSlot({
          licenseKey: license_key,
          activation: activation('alice'),
          now: NOW,
        });
        const counted = await stores().licenses.touchCheckIfMatching({
          ...newCall(),
          licenseKey: license_key,
          productId: 10,
          // The seat key matches; the domain key (another type) is not this license's.
          identifierKeys: { seat: 'alice', domain: 'bob.example' },
          at: LATER,
          ip: '::1',
        });
        expect(counted).toMatchObject({ license_key, check_count: 1, last_check_ip: '::1' });
        expect(await stores().licenses.findByKey(license_key)).toEqual(counted);
        const noIdentifier = await stores().licenses.touchCheckIfMatching({
          ...newCall(),
          licenseKey: license_key,
          productId: null,
          identifierKeys: null,
          at: LATER,
          ip: '::1',
        });
        expect(noIdentifier?.check_count).toBe(2);
      });

      test('a check if matching writes nothing when the product, the identifier or its type does not match', async () => {
        const { license_key } = await issue({ activation_type: 'seat' });
        await stores().licenses.claimSlot({
          licenseKey: license_key,
          activation: activation('alice'),
          now: NOW,
        });
        const attempts = [
          { productId: 11, identifierKeys: null },
          { productId: null, identifierKeys: { seat: 'bob' } },
          // The key of an activated identifier, but under another activation type.
          { productId: null, identifierKeys: { domain: 'alice' } },
          { productId: null, identifierKeys: {} },
        ];
        for (const attempt of attempts) {
          expect(
            await stores().licenses.touchCheckIfMatching({
              ...newCall(),
              licenseKey: license_key,
              ...attempt,
              at: LATER,
              ip: '::1',
            }),
          ).toBeNull();
        }
        expect(
          await stores().licenses.touchCheckIfMatching({
            ...newCall(),
            licenseKey: uniqueKey(),
            productId: null,
            identifierKeys: null,
            at: LATER,
            ip: '::1',
          }),
        ).toBeNull();
        expect(await stores().licenses.findByKey(license_key)).toMatchObject({
          check_count: 0,
          last_check_at: null,
        });
      });

      test('a check is counted once per call: the same call again counts nothing; another call counts', async () => {
        const { license_key } = await issue();
        const check = (call: { checkId: string; deadline: number }, at: Date) =>
          stores().licenses.touchCheckIfMatching({
            licenseKey: license_key,
            productId: null,
            identifierKeys: null,
            at,
            ip: '::1',
            ...call,
          });
        const call = newCall();
        expect(await check(call, NOW)).toMatchObject({ check_count: 1, last_check_at: NOW });
        // Its request delivered again, later.
        expect(await check(call, LATER)).toBeNull();
        expect(await stores().licenses.findByKey(license_key)).toMatchObject({
          check_count: 1,
          last_check_at: NOW,
        });
        expect(await check(newCall(), LATER)).toMatchObject({ check_count: 2 });
      });

      test(`a license keeps the ids of its last ${RECENT_CHECKS} checks, no more`, async () => {
        const { license_key } = await issue();
        const check = (call: { checkId: string; deadline: number }) =>
          stores().licenses.touchCheckIfMatching({
            licenseKey: license_key,
            productId: null,
            identifierKeys: null,
            at: NOW,
            ip: '::1',
            ...call,
          });
        const calls = Array.from({ length: RECENT_CHECKS + 1 }, newCall);
        for (const call of calls) await check(call);
        // The last RECENT_CHECKS are known; the first, older than them, is no longer.
        expect(await check(calls[1]!)).toBeNull();
        expect(await check(calls.at(-1)!)).toBeNull();
        expect(await check(calls[0]!)).toMatchObject({ check_count: RECENT_CHECKS + 2 });
      });

      test('a check whose caller stopped waiting before it was sent is not counted', async () => {
        const { license_key } = await issue();
        await expect(
          stores().licenses.touchCheckIfMatching({
            licenseKey: license_key,
            productId: null,
            identifierKeys: null,
            at: NOW,
            ip: '::1',
            checkId: randomUUID(),
            deadline: Date.now() - 1,
          }),
        ).rejects.toMatchObject({ code: 'INTERNAL_ERROR' });
        expect(await stores().licenses.findByKey(license_key)).toMatchObject({
          check_count: 0,
          last_check_at: null,
        });
      });

      test('a check of an unknown key changes nothing', async () => {
        await expect(
          stores().licenses.touchCheckIfMatching({
            ...newCall(),
            licenseKey: uniqueKey(),
            productId: null,
            identifierKeys: null,
            at: NOW,
            ip: '::1',
          }),
        ).resolves.toBeNull();
      });
    });
  });

  describe(`${implementation}: activations (spec 3.2)`, () => {
    const openedStores = withOpened(open);
    const stores = () => openedStores().stores;
    const issue = async (overrides: Partial<NewLicense> = {}) => {
      const issued = await stores().licenses.issue({ license: newLicense(overrides), now: NOW });
      if (issued.outcome !== 'issued') throw new Error('The license was not issued.');
      return issued.license.license_key;
    };
    const claim = (licenseKey: string, identifier: string, now = NOW) =>
      stores().licenses.claimSlot({ licenseKey, activation: activation(identifier), now });

    test('a claim stores the activation with its key and answers with the license after it', async () => {
      const licenseKey = await issue({ activation_type: 'device' });
      const claimed = await stores().licenses.claimSlot({
        licenseKey,
        activation: activation('PC-One', { name: 'Office', ip: '' }),
        now: NOW,
      });
      const stored = {
        identifier: 'PC-One',
        identifier_key: 'pc-one',
        name: 'Office',
        ip: '',
        activated_at: EARLIER,
        last_checkout_at: null,
        lease_expires_at: null,
        exempt: false,
      };
      expect(claimed?.activation).toEqual(stored);
      expect(claimed?.license).toMatchObject({ license_key: licenseKey, activations_used: 1 });
      expect(await stores().licenses.findByKey(licenseKey)).toEqual(claimed?.license);
      expect(
        await stores().licenseReads.listActivations({
          licenseKey,
          identifierKeys: null,
          page: 1,
          perPage: 10,
        }),
      ).toEqual({ activations: [stored], total: 1 });
    });

    test('an identifier already activated, in any letter case, takes no second slot', async () => {
      const licenseKey = await issue({ activation_type: 'device' });
      expect(await claim(licenseKey, 'PC-One')).not.toBeNull();
      expect(await claim(licenseKey, 'pc-ONE')).toBeNull();
      expect(await identifiersOf(stores(), licenseKey)).toEqual(['PC-One']);
    });

    test('a full license takes no claim; limit 0 means unlimited', async () => {
      const full = await issue({ activation_limit: 1 });
      expect(await claim(full, 'a.com')).not.toBeNull();
      expect(await claim(full, 'b.com')).toBeNull();
      const unlimited = await issue({ activation_limit: 0 });
      for (let i = 0; i < 5; i++) expect(await claim(unlimited, `s${i}.com`)).not.toBeNull();
    });

    test.each(['suspended', 'revoked', 'cancelled', 'expired'] as const)(
      'a license whose status is %s takes no claim',
      async (status) => {
        expect(await claim(await issue({ status }), 'a.com')).toBeNull();
      },
    );

    test('a license takes claims until its expiry instant, and none from it on', async () => {
      const licenseKey = await issue({ expires_at: NOW });
      expect(await claim(licenseKey, 'before.com', new Date(NOW.getTime() - 1))).not.toBeNull();
      expect(await claim(licenseKey, 'at.com', NOW)).toBeNull();
    });

    test('an unknown key takes no claim', async () => {
      expect(await claim(uniqueKey(), 'a.com')).toBeNull();
    });

    test('concurrent claims never exceed the limit: 20 claims on a limit of 3, exactly 3 succeed', async () => {
      const licenseKey = await issue({ activation_limit: 3 });
      const claims = await Promise.all(
        Array.from({ length: 20 }, (_, i) => claim(licenseKey, `site-${i}.example`)),
      );
      expect(claims.filter((c) => c !== null)).toHaveLength(3);
      expect((await stores().licenses.findByKey(licenseKey))?.activations_used).toBe(3);
      expect(await identifiersOf(stores(), licenseKey)).toHaveLength(3);
    });

    test("a claim is refused when the activation would not fit in the license's record; a release makes room", async () => {
      const opened = openedStores();
      const licenseKey = await issue({ activation_limit: 0 });
      const first = await claim(licenseKey, 'first.example');
      const used = first!.license.activations_bytes;
      expect(used).toBe(activationBytes(first!.activation));
      await opened.fillRecord(licenseKey, MAX_ACTIVATION_BYTES - used + 1);
      expect(await claim(licenseKey, 'other.example')).toBeNull();
      await opened.fillRecord(licenseKey, MAX_ACTIVATION_BYTES - used);
      expect((await claim(licenseKey, 'other.example'))?.license.activations_bytes).toBe(
        MAX_ACTIVATION_BYTES,
      );
      const released = await releaseIdentifier(stores(), {
        licenseKey,
        identifier: 'first.example',
        now: NOW,
      });
      expect(released?.license.activations_bytes).toBe(MAX_ACTIVATION_BYTES - used);
      expect(released?.license.activations_used).toBe(1);
      expect(await stores().licenses.findByKey(licenseKey)).toMatchObject({
        activations_used: 1,
        activations_bytes: MAX_ACTIVATION_BYTES - used,
      });
    });

    test('concurrent claims of one identifier take one slot', async () => {
      const licenseKey = await issue({ activation_limit: 5 });
      const claims = await Promise.all(
        Array.from({ length: 10 }, () => claim(licenseKey, 'same.com')),
      );
      expect(claims.filter((c) => c !== null)).toHaveLength(1);
      expect(await identifiersOf(stores(), licenseKey)).toEqual(['same.com']);
      // The claims that found it activated gave their slot back.
      expect((await stores().licenses.findByKey(licenseKey))?.activations_used).toBe(1);
    });

    test('a release frees the slot of an identifier in any letter case, and names it as stored', async () => {
      const licenseKey = await issue({ activation_type: 'device', activation_limit: 1 });
      await claim(licenseKey, 'Laptop-7');
      const released = await releaseIdentifier(stores(), {
        now: NOW,
        licenseKey,
        identifier: 'laptop-7',
      });
      expect(released).toEqual({
        license: expect.objectContaining({ license_key: licenseKey, activations_used: 0 }),
        released: expect.objectContaining({ identifier: 'Laptop-7', identifier_key: 'laptop-7' }),
      });
      expect(await claim(licenseKey, 'Desktop-1')).not.toBeNull();
    });

    test('releasing an identifier that is not activated, or twice, releases nothing', async () => {
      const licenseKey = await issue();
      await claim(licenseKey, 'a.com');
      expect(
        await releaseIdentifier(stores(), { now: NOW, licenseKey, identifier: 'b.com' }),
      ).toBeNull();
      expect(
        await releaseIdentifier(stores(), { now: NOW, licenseKey, identifier: 'a.com' }),
      ).not.toBeNull();
      expect(
        await releaseIdentifier(stores(), { now: NOW, licenseKey, identifier: 'a.com' }),
      ).toBeNull();
      expect(
        await releaseIdentifier(stores(), {
          now: NOW,
          licenseKey: uniqueKey(),
          identifier: 'a.com',
        }),
      ).toBeNull();
    });

    test('concurrent releases of one identifier release it once', async () => {
      const licenseKey = await issue();
      await claim(licenseKey, 'a.com');
      await claim(licenseKey, 'b.com');
      const releases = await Promise.all(
        Array.from({ length: 5 }, () =>
          releaseIdentifier(stores(), { now: NOW, licenseKey, identifier: 'a.com' }),
        ),
      );
      expect(releases.filter((r) => r !== null)).toHaveLength(1);
      expect(await identifiersOf(stores(), licenseKey)).toEqual(['b.com']);
    });
  });

  describe(`${implementation}: license files (checkout)`, () => {
    const stores = withStores(open);
    const issued = async (overrides: Partial<NewLicense> = {}, ...identifiers: string[]) => {
      const created = await stores().licenses.issue({ license: newLicense(overrides), now: NOW });
      if (created.outcome !== 'issued') throw new Error('The license was not issued.');
      const licenseKey = created.license.license_key;
      for (const identifier of identifiers) {
        await stores().licenses.claimSlot({
          licenseKey,
          activation: activation(identifier),
          now: EARLIER,
        });
      }
      return licenseKey;
    };
    const checkoutTimes = async (licenseKey: string) =>
      Object.fromEntries(
        (
          await stores().licenseReads.listActivations({
            licenseKey,
            identifierKeys: null,
            page: 1,
            perPage: 100,
          })
        ).activations.map((a) => [a.identifier, a.last_checkout_at]),
      );

    test('a checkout is recorded on its activation, in any letter case; the others are left alone', async () => {
      const licenseKey = await issued({ activation_type: 'device' }, 'PC-One', 'PC-Two');
      const record = (identifier: string, at: Date) =>
        stores().licenses.recordCheckout({ licenseKey, identifier, at, ...NO_LEASE_CHECKOUT });
      expect(await record('pc-two', NOW)).toBe(true);
      expect(await checkoutTimes(licenseKey)).toEqual({ 'PC-One': null, 'PC-Two': NOW });
      const later = new Date(NOW.getTime() + DAY);
      expect(await record('PC-ONE', later)).toBe(true);
      expect(await checkoutTimes(licenseKey)).toEqual({ 'PC-One': later, 'PC-Two': NOW });
    });

    test('an identifier not activated, or an unknown key, records nothing', async () => {
      const licenseKey = await issued({}, 'a.com');
      const record = (key: string, identifier: string) =>
        stores().licenses.recordCheckout({
          licenseKey: key,
          identifier,
          at: NOW,
          ...NO_LEASE_CHECKOUT,
        });
      expect(await record(licenseKey, 'b.com')).toBe(false);
      expect(await record(uniqueKey(), 'a.com')).toBe(false);
      expect(await checkoutTimes(licenseKey)).toEqual({ 'a.com': null });
    });

    test('a license that is not active, or is expired at the time, records nothing', async () => {
      const record = (licenseKey: string, at: Date) =>
        stores().licenses.recordCheckout({
          licenseKey,
          identifier: 'a.com',
          at,
          ...NO_LEASE_CHECKOUT,
        });
      const expiring = await issued({ expires_at: NOW }, 'a.com');
      expect(await record(expiring, NOW)).toBe(false);
      expect(await checkoutTimes(expiring)).toEqual({ 'a.com': null });
      const before = new Date(NOW.getTime() - 1);
      expect(await record(expiring, before)).toBe(true);
      const suspended = await issued({}, 'a.com');
      await stores().licenses.update({
        licenseKey: suspended,
        changes: { status: 'suspended' },
        now: NOW,
      });
      expect(await record(suspended, NOW)).toBe(false);
      expect(await checkoutTimes(suspended)).toEqual({ 'a.com': null });
    });
  });
}
