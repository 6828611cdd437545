import { randomBytes } from 'node:crypto';
import type { NewLicense } from '../../services/license/licenses/license-store.js';
import type { LicenseRecord } from '../../services/license/records.js';
import {
  DAY,
  EARLIER,
  LATER,
  NOW,
  NO_LEASE,
  activation,
  identifiersOf,
  issueLicense,
  newLicense,
  releaseIdentifier,
  uniqueKey,
  withStores,
  type OpenStores,
} from '../../bench/support/license-store-fixtures.js';

/**
 * What every implementation of the license store must do (services/license/licenses/license-store.ts):
 * licenses issued, read, changed, expired, moved to a plan and renewed, run against each of them
 * with the same body. Their activations' claims and checks are activation-store-contract.ts's.
 */
export function describeLicenseStores(implementation: string, open: OpenStores): void {
  describe(`${implementation}: licenses (spec 2.2)`, () => {
    const stores = withStores(open);
    const issue = (overrides: Partial<NewLicense> = {}) => issueLicense(stores(), overrides);

    test('an issued license starts without activations, checks or pending plan change, and is found by its key', async () => {
      const license = await issue({ expires_at: LATER, activation_type: 'seat' });
      expect(license).toEqual({
        ...newLicense({
          license_key: license.license_key,
          expires_at: LATER,
          activation_type: 'seat',
        }),
        activations_used: 0,
        exempt_used: 0,
        activations_bytes: 0,
        last_check_at: null,
        last_check_ip: null,
        check_count: 0,
        created_at: expect.any(Date),
        pending_plan_id: null,
        customer: null,
        metadata: {},
        store: null,
      });
      expect(await stores().licenses.findByKey(license.license_key)).toEqual(license);
    });

    test('a customer and metadata are kept as given, metadata in the order given', async () => {
      const customer = { email: 'jane@example.com', name: 'Jane Doe' };
      const metadata = { order_id: 'A-1001', crm: 'Kundennummer 7', zeta: 'z' };
      const license = await issue({ customer, metadata });
      expect(license).toMatchObject({ customer, metadata });
      const read = await stores().licenses.findByKey(license.license_key);
      expect(read).toMatchObject({ customer, metadata });
      expect(Object.keys(read!.metadata)).toEqual(['order_id', 'crm', 'zeta']);
    });

    test('an unknown key finds nothing', async () => {
      expect(await stores().licenses.findByKey(uniqueKey())).toBeNull();
    });

    test('a license key is unique: a taken key issues nothing and changes nothing', async () => {
      const first = await issue();
      const again = await stores().licenses.issue({
        license: newLicense({ license_key: first.license_key, plan_id: 2 }),
        now: NOW,
      });
      expect(again).toEqual({ outcome: 'key-taken' });
      expect(await stores().licenses.findByKey(first.license_key)).toEqual(first);
    });

    test('license keys are matched exactly: a key in other letter case is another license', async () => {
      const key = `Key-${randomBytes(6).toString('hex')}`;
      await issue({ license_key: key });
      expect(await stores().licenses.findByKey(key.toLowerCase())).toBeNull();
      expect(
        (
          await stores().licenses.issue({
            license: newLicense({ license_key: key.toLowerCase() }),
            now: NOW,
          })
        ).outcome,
      ).toBe('issued');
    });

    test('records and their dates are copies: changing one changes nothing stored', async () => {
      const expiry = new Date(LATER);
      const license = await issue({ expires_at: expiry });
      expiry.setTime(0);
      license.activations_used = 99;
      license.expires_at?.setTime(0);
      const read = await stores().licenses.findByKey(license.license_key);
      expect(read?.expires_at).toEqual(LATER);
      expect(read?.activations_used).toBe(0);
      read!.created_at.setTime(0);
      expect(
        (await stores().licenses.findByKey(license.license_key))?.created_at.getTime(),
      ).not.toBe(0);
    });

    describe('a license read with the activations of an identifier', () => {
      test('the activations under any of the keys given, of whatever type; none without keys', async () => {
        const { license_key: licenseKey } = await issue({ activation_type: 'seat' });
        for (const identifier of ['alice', 'bob', 'carol']) {
          await stores().licenses.claimSlot({
            licenseKey,
            activation: activation(identifier),
            now: NOW,
          });
        }
        const found = await stores().licenses.findWithActivations({
          licenseKey,
          identifierKeys: ['alice', 'carol', 'nobody', 'alice'],
        });
        expect(found?.license).toEqual(await stores().licenses.findByKey(licenseKey));
        expect(found?.activations.map((a) => a.identifier).sort()).toEqual(['alice', 'carol']);
        expect(
          (await stores().licenses.findWithActivations({ licenseKey, identifierKeys: [] }))
            ?.activations,
        ).toEqual([]);
      });

      test("another license's activations are not this one's; an unknown key finds nothing", async () => {
        const { license_key: one } = await issue();
        const { license_key: other } = await issue();
        await stores().licenses.claimSlot({
          licenseKey: other,
          activation: activation('shared.example'),
          now: NOW,
        });
        expect(
          (
            await stores().licenses.findWithActivations({
              licenseKey: one,
              identifierKeys: ['shared.example'],
            })
          )?.activations,
        ).toEqual([]);
        expect(
          await stores().licenses.findWithActivations({
            licenseKey: uniqueKey(),
            identifierKeys: ['shared.example'],
          }),
        ).toBeNull();
      });
    });

    describe('spec 3.3: changes of status, expiry and limit', () => {
      const withActivations = async (limit: number, count: number) => {
        const { license_key } = await issue({ activation_limit: limit });
        for (let i = 0; i < count; i++) {
          await stores().licenses.claimSlot({
            licenseKey: license_key,
            activation: activation(`site-${i}.example`),
            now: NOW,
          });
        }
        return license_key;
      };

      test('status, expiry and limit change together; the license as it was just before comes with it', async () => {
        const licenseKey = await withActivations(3, 1);
        const before = await stores().licenses.findByKey(licenseKey);
        const updated = await stores().licenses.update({
          now: NOW,
          licenseKey,
          changes: { status: 'suspended', expires_at: LATER, activation_limit: 5 },
        });
        expect(updated).toEqual({
          outcome: 'updated',
          license: expect.objectContaining({
            status: 'suspended',
            expires_at: LATER,
            activation_limit: 5,
          }),
          previous: before,
        });
        expect(await stores().licenses.findByKey(licenseKey)).toEqual(
          updated.outcome === 'updated' ? updated.license : null,
        );
      });

      test('fields not named are left alone, and an expiry of null clears it', async () => {
        const { license_key: licenseKey } = await issue({ expires_at: LATER, activation_limit: 4 });
        const updated = await stores().licenses.update({
          now: NOW,
          licenseKey,
          changes: { expires_at: null },
        });
        expect(updated).toMatchObject({
          outcome: 'updated',
          license: { status: 'active', expires_at: null, activation_limit: 4 },
        });
      });

      test('a limit below the activations in use is refused, and nothing else changes either', async () => {
        const licenseKey = await withActivations(3, 2);
        const before = await stores().licenses.findByKey(licenseKey);
        expect(
          await stores().licenses.update({
            now: NOW,
            licenseKey,
            changes: { activation_limit: 1, status: 'suspended' },
          }),
        ).toEqual({ outcome: 'limit-below-activations', activation_limit: 1, activations_used: 2 });
        expect(await stores().licenses.findByKey(licenseKey)).toEqual(before);
      });

      test('a limit equal to the activations in use, or 0 (unlimited), is accepted', async () => {
        const licenseKey = await withActivations(3, 2);
        for (const limit of [2, 0]) {
          expect(
            await stores().licenses.update({
              now: NOW,
              licenseKey,
              changes: { activation_limit: limit },
            }),
          ).toMatchObject({ outcome: 'updated', license: { activation_limit: limit } });
        }
      });

      test('customer and metadata change with the rest; metadata is replaced whole, a customer of null removed', async () => {
        const { license_key: licenseKey } = await issue({
          customer: { email: 'old@example.com', name: null },
          metadata: { order_id: 'A-1', crm: 'C-1' },
        });
        const updated = await stores().licenses.update({
          now: NOW,
          licenseKey,
          changes: {
            customer: { email: 'new@example.com', name: 'New' },
            metadata: { invoice: 'I-9' },
          },
        });
        expect(updated).toMatchObject({
          outcome: 'updated',
          license: {
            customer: { email: 'new@example.com', name: 'New' },
            metadata: { invoice: 'I-9' },
          },
          previous: {
            customer: { email: 'old@example.com' },
            metadata: { order_id: 'A-1', crm: 'C-1' },
          },
        });
        expect(await stores().licenses.findByKey(licenseKey)).toMatchObject({
          metadata: { invoice: 'I-9' },
        });
        await stores().licenses.update({
          now: NOW,
          licenseKey,
          changes: { customer: null, metadata: {} },
        });
        expect(await stores().licenses.findByKey(licenseKey)).toMatchObject({
          customer: null,
          metadata: {},
          status: 'active',
        });
      });

      test('a change decided on an expiry is written only while the expiry is still that one', async () => {
        const { license_key: licenseKey } = await issue({ expires_at: LATER });
        const moved = new Date(LATER.getTime() + 30 * DAY);
        expect(
          await stores().licenses.update({
            now: NOW,
            licenseKey,
            changes: { expires_at: moved },
            expected: { expires_at: EARLIER },
          }),
        ).toEqual({ outcome: 'changed-meanwhile' });
        expect((await stores().licenses.findByKey(licenseKey))?.expires_at).toEqual(LATER);
        expect(
          await stores().licenses.update({
            now: NOW,
            licenseKey,
            changes: { expires_at: moved },
            expected: { expires_at: LATER },
          }),
        ).toMatchObject({ outcome: 'updated', license: { expires_at: moved } });
        expect(
          await stores().licenses.update({
            now: NOW,
            licenseKey: uniqueKey(),
            changes: { expires_at: moved },
            expected: { expires_at: LATER },
          }),
        ).toEqual({ outcome: 'unknown-license' });
      });

      test('an unknown key is reported as such', async () => {
        for (const changes of [{ status: 'active' as const }, { activation_limit: 5 }]) {
          expect(
            await stores().licenses.update({ now: NOW, licenseKey: uniqueKey(), changes }),
          ).toEqual({
            outcome: 'unknown-license',
          });
        }
      });

      test('lowering the limit while claims race never leaves more activations than the new limit', async () => {
        const licenseKey = await withActivations(10, 3);
        const [lowered] = await Promise.all([
          stores().licenses.update({ now: NOW, licenseKey, changes: { activation_limit: 4 } }),
          ...Array.from({ length: 8 }, (_, i) =>
            stores().licenses.claimSlot({
              licenseKey,
              activation: activation(`race-${i}.example`),
              now: NOW,
            }),
          ),
        ]);
        const license = await stores().licenses.findByKey(licenseKey);
        const held = (await identifiersOf(stores(), licenseKey)).length;
        expect(license?.activations_used).toBe(held);
        if (lowered.outcome === 'updated') {
          expect(license?.activation_limit).toBe(4);
          expect(held).toBeLessThanOrEqual(4);
        } else {
          expect(lowered.outcome).toBe('limit-below-activations');
          expect(license?.activation_limit).toBe(10);
          expect(held).toBeGreaterThan(4);
        }
      });
    });
  });

  describe(`${implementation}: spec 3.1 expiry (scheduled task)`, () => {
    const stores = withStores(open);

    test('every active license whose expiry date is now or earlier becomes expired; nothing else changes', async () => {
      const keys = {
        due: newLicense({ expires_at: EARLIER }),
        dueNow: newLicense({ expires_at: NOW }),
        later: newLicense({ expires_at: LATER }),
        never: newLicense({ expires_at: null }),
        suspended: newLicense({ status: 'suspended', expires_at: EARLIER }),
      };
      for (const license of Object.values(keys))
        await stores().licenses.issue({ license: license, now: NOW });
      const due = await stores().licenses.pastDue({ now: NOW, limit: 10 });
      expect(due.map((license) => license.license_key).sort()).toEqual(
        [keys.due.license_key, keys.dueNow.license_key].sort(),
      );
      const expired = await stores().licenses.expirePastDue({ licenses: due, now: NOW });
      expect(expired.map((license) => license.license_key).sort()).toEqual(
        [keys.due.license_key, keys.dueNow.license_key].sort(),
      );
      expect(expired.map((license) => license.status)).toEqual(['expired', 'expired']);
      const status = async (license: NewLicense) =>
        (await stores().licenses.findByKey(license.license_key))?.status;
      expect(await status(keys.due)).toBe('expired');
      expect(await status(keys.dueNow)).toBe('expired');
      expect(await status(keys.later)).toBe('active');
      expect(await status(keys.never)).toBe('active');
      expect(await status(keys.suspended)).toBe('suspended');
      expect(await stores().licenses.pastDue({ now: NOW, limit: 10 })).toEqual([]);
    });

    test('concurrent expiries expire each license once', async () => {
      const keys = Array.from({ length: 3 }, () => newLicense({ expires_at: EARLIER }));
      for (const license of keys) await stores().licenses.issue({ license, now: NOW });
      // Each run selected them all before any wrote.
      const selected = await Promise.all(
        Array.from({ length: 6 }, () => stores().licenses.pastDue({ now: NOW, limit: 10 })),
      );
      const expired = await Promise.all(
        selected.map((licenses) => stores().licenses.expirePastDue({ licenses, now: NOW })),
      );
      const expiredKeys = expired.flat().map((license) => license.license_key);
      expect(expiredKeys.sort()).toEqual(keys.map((license) => license.license_key).sort());
    });
  });

  describe(`${implementation}: spec 3.3 plan changes and renewals`, () => {
    const stores = withStores(open);
    const issue = (overrides: Partial<NewLicense> = {}) => issueLicense(stores(), overrides);
    const seat = { id: 7, activation_type: 'seat' as const, activation_limit: 10, ...NO_LEASE };
    const basisOf = (license: LicenseRecord) => ({
      status: license.status,
      plan_id: license.plan_id,
      pending_plan_id: license.pending_plan_id,
      expires_at: license.expires_at,
    });

    test('a plan change now takes the plan, its limit and its type, and clears a pending change; the license as it was just before comes with it', async () => {
      const { license_key: licenseKey } = await issue();
      const pending = await stores().licenses.schedulePlanChange({
        now: NOW,
        licenseKey,
        planId: 5,
      });
      const changed = await stores().licenses.changePlan({ now: NOW, licenseKey, plan: seat });
      expect(changed).toEqual({
        license: expect.objectContaining({
          plan_id: 7,
          activation_type: 'seat',
          activation_limit: 10,
          pending_plan_id: null,
        }),
        previous: pending,
      });
      expect(await stores().licenses.findByKey(licenseKey)).toEqual(changed?.license);
    });

    test('a plan change now keeps the activations in use above a lower limit; claims wait until under it', async () => {
      const { license_key: licenseKey } = await issue({ activation_limit: 3 });
      for (const site of ['a.com', 'b.com', 'c.com']) {
        await stores().licenses.claimSlot({ licenseKey, activation: activation(site), now: NOW });
      }
      const lower = {
        id: 2,
        activation_type: 'domain' as const,
        activation_limit: 2,
        ...NO_LEASE,
      };
      const changed = await stores().licenses.changePlan({ now: NOW, licenseKey, plan: lower });
      expect(changed?.license.activations_used).toBe(3);
      expect(await identifiersOf(stores(), licenseKey)).toEqual(['a.com', 'b.com', 'c.com']);
      const claim = () =>
        stores().licenses.claimSlot({ licenseKey, activation: activation('d.com'), now: NOW });
      expect(await claim()).toBeNull();
      await releaseIdentifier(stores(), { now: NOW, licenseKey, identifier: 'a.com' });
      expect(await claim()).toBeNull();
      await releaseIdentifier(stores(), { now: NOW, licenseKey, identifier: 'b.com' });
      expect((await claim())?.license.activations_used).toBe(2);
      expect(await identifiersOf(stores(), licenseKey)).toEqual(['c.com', 'd.com']);
    });

    test('a plan change at renewal is stored as pending; plan, limit and type stay', async () => {
      const license = await issue();
      const scheduled = await stores().licenses.schedulePlanChange({
        now: NOW,
        licenseKey: license.license_key,
        planId: 7,
      });
      expect(scheduled).toEqual({ ...license, pending_plan_id: 7 });
      expect(await stores().licenses.findByKey(license.license_key)).toEqual(scheduled);
    });

    test('a plan change of an unknown key changes nothing', async () => {
      const licenseKey = uniqueKey();
      expect(await stores().licenses.changePlan({ now: NOW, licenseKey, plan: seat })).toBeNull();
      expect(
        await stores().licenses.schedulePlanChange({ now: NOW, licenseKey, planId: 7 }),
      ).toBeNull();
      expect(await stores().licenses.findByKey(licenseKey)).toBeNull();
    });

    test('a renewal writes status, expiry and next payment; plan, limit and type stay without a plan', async () => {
      const license = await issue({ status: 'expired', expires_at: EARLIER });
      await stores().licenses.schedulePlanChange({
        now: NOW,
        licenseKey: license.license_key,
        planId: 7,
      });
      const renewed = await stores().licenses.renew({
        now: NOW,
        licenseKey: license.license_key,
        basis: { ...basisOf(license), pending_plan_id: 7 },
        renewal: { status: 'active', expires_at: LATER, next_payment_at: LATER },
      });
      expect(renewed).toEqual({
        ...license,
        status: 'active',
        expires_at: LATER,
        next_payment_at: LATER,
        pending_plan_id: 7,
      });
      expect(await stores().licenses.findByKey(license.license_key)).toEqual(renewed);
    });

    test('a renewal with a plan takes its limit and type and clears the pending change', async () => {
      const license = await issue({ activation_limit: 1 });
      await stores().licenses.schedulePlanChange({
        now: NOW,
        licenseKey: license.license_key,
        planId: 7,
      });
      expect(
        await stores().licenses.renew({
          now: NOW,
          licenseKey: license.license_key,
          basis: { ...basisOf(license), pending_plan_id: 7 },
          renewal: { status: 'active', expires_at: LATER, plan: seat },
        }),
      ).toMatchObject({
        plan_id: 7,
        activation_type: 'seat',
        activation_limit: 10,
        pending_plan_id: null,
        expires_at: LATER,
      });
    });

    test('a renewal leaves the next payment date when none is given, and clears it with null', async () => {
      const license = await issue({ next_payment_at: EARLIER });
      const renew = (next_payment_at?: Date | null) =>
        stores().licenses.renew({
          now: NOW,
          licenseKey: license.license_key,
          basis: basisOf(license),
          renewal: { status: 'active', expires_at: LATER, next_payment_at },
        });
      expect((await renew())?.next_payment_at).toEqual(EARLIER);
      // The same basis again: the first renewal moved the expiry the second was decided on.
      expect(await renew(null)).toBeNull();
      const renewed = await stores().licenses.findByKey(license.license_key);
      expect(
        (
          await stores().licenses.renew({
            now: NOW,
            licenseKey: license.license_key,
            basis: basisOf(renewed!),
            renewal: { status: 'active', expires_at: LATER, next_payment_at: null },
          })
        )?.next_payment_at,
      ).toBeNull();
    });

    test.each([
      ['status', { status: 'suspended' as const }],
      ['plan', { plan_id: 99 }],
      ['pending plan change', { pending_plan_id: 7 }],
      ['expiry', { expires_at: LATER }],
    ])('a renewal decided on another %s than the stored one writes nothing', async (_, stale) => {
      const license = await issue();
      expect(
        await stores().licenses.renew({
          now: NOW,
          licenseKey: license.license_key,
          basis: { ...basisOf(license), ...stale },
          renewal: { status: 'active', expires_at: LATER, plan: seat },
        }),
      ).toBeNull();
      expect(await stores().licenses.findByKey(license.license_key)).toEqual(license);
    });

    test('concurrent renewals decided on one read: only the first is written', async () => {
      const license = await issue({ status: 'expired', expires_at: EARLIER });
      const renewals = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          stores().licenses.renew({
            now: NOW,
            licenseKey: license.license_key,
            basis: basisOf(license),
            renewal: { status: 'active', expires_at: new Date(LATER.getTime() + i * DAY) },
          }),
        ),
      );
      const written = renewals.filter((r) => r !== null);
      expect(written).toHaveLength(1);
      expect(await stores().licenses.findByKey(license.license_key)).toEqual(written[0]);
    });

    test('a renewal of an unknown key writes nothing', async () => {
      expect(
        await stores().licenses.renew({
          now: NOW,
          licenseKey: uniqueKey(),
          basis: { status: 'active', plan_id: 1, pending_plan_id: null, expires_at: null },
          renewal: { status: 'active', expires_at: LATER },
        }),
      ).toBeNull();
    });
  });
}
