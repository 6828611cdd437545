import { randomBytes, randomUUID } from 'node:crypto';
import { identifierKey } from '../../libs/identifier/index.js';
import { activationBytes } from '../../services/license/mongo-stores.js';
import type { ListCursor } from '../../libs/contracts/index.js';
import {
  MAX_ACTIVATION_BYTES,
  NEWEST_FIRST,
  RECENT_CHECKS,
  type LicenseFilters,
  type LicenseOrder,
  type LicenseRecord,
  type LicenseStores,
  type NewActivation,
  type NewLicense,
  type TaskRunRecord,
} from '../../services/license/stores.js';

/**
 * Opens empty stores; `close` removes whatever they hold; `scheduleJob` writes what the scheduler
 * would record of a recurring job (services/license/scheduler.ts), for `nextScheduledRun`;
 * `fillRecord` makes a license's record as full of activations as `bytes` says, as tens of
 * thousands of them would.
 */
export type OpenStores = () => Promise<{
  stores: LicenseStores;
  close(): Promise<void>;
  scheduleJob(jobName: string, nextRunAt: Date | null): Promise<void>;
  fillRecord(licenseKey: string, bytes: number): Promise<void>;
}>;

const NOW = new Date('2026-06-01T12:00:00.000Z');
const EARLIER = new Date('2026-05-01T00:00:00.000Z');
const LATER = new Date('2027-01-01T00:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;

const uniqueKey = () => `key-${randomBytes(6).toString('hex')}`;

/** A check's call: an id of its own, and a caller that waits for a minute more. */
export const newCall = () => ({ checkId: randomUUID(), deadline: Date.now() + 60_000 });

/** A license to issue: active, no expiry, 3 domains, no lease; `overrides` changes some. */
export function newLicense(overrides: Partial<NewLicense> = {}): NewLicense {
  return {
    license_key: uniqueKey(),
    product_id: 10,
    plan_id: 1,
    status: 'active',
    expires_at: null,
    auto_renew: false,
    next_payment_at: null,
    activation_type: 'domain',
    activation_limit: 3,
    lease_seconds: null,
    exempt_identifiers: [],
    exempt_limit: 3,
    ...overrides,
  };
}

function activation(identifier: string, overrides: Partial<NewActivation> = {}): NewActivation {
  return {
    identifier,
    name: null,
    ip: '192.0.2.1',
    activated_at: EARLIER,
    lease_expires_at: null,
    exempt: false,
    ...overrides,
  };
}

/** What a plan applied to a license sets besides its id, limit and type: no lease, no exemptions. */
const NO_LEASE = { lease_seconds: null, exempt_identifiers: [], exempt_limit: 3 };
/** A checkout on a license without a lease: none decided on, none renewed. */
const NO_LEASE_CHECKOUT = { leaseSeconds: null, leaseExpiresAt: null };

/** Releases the activation of an identifier as a handler does: as read, then released. */
async function releaseIdentifier(
  stores: LicenseStores,
  { licenseKey, identifier, now }: { licenseKey: string; identifier: string; now: Date },
) {
  const found = await stores.licenses.findWithActivations({
    licenseKey,
    identifierKeys: [identifierKey(identifier)],
  });
  const activation = found?.activations[0];
  return activation ? stores.licenses.releaseSlot({ licenseKey, activation, now }) : null;
}

/** The identifiers activated on a license, sorted. */
async function identifiersOf(stores: LicenseStores, licenseKey: string): Promise<string[]> {
  const { activations } = await stores.licenses.listActivations({
    licenseKey,
    identifierKeys: null,
    page: 1,
    perPage: 1000,
  });
  return activations.map((a) => a.identifier).sort();
}

/**
 * What every implementation of the license service's stores must do (services/license/stores.ts),
 * run against each of them with the same body.
 */
export function describeLicenseStores(implementation: string, open: OpenStores): void {
  /** Fresh stores for each group, so counts over a whole store see only the group's records. */
  function withOpened(): () => Awaited<ReturnType<OpenStores>> {
    let opened: Awaited<ReturnType<OpenStores>> | undefined;
    beforeAll(async () => {
      opened = await open();
    });
    afterAll(async () => {
      await opened?.close();
    });
    return () => {
      if (!opened) throw new Error('The stores did not open.');
      return opened;
    };
  }
  function withStores(): () => LicenseStores {
    const opened = withOpened();
    return () => opened().stores;
  }

  describe(`${implementation}: licenses (spec 2.2)`, () => {
    const stores = withStores();
    const issue = async (overrides: Partial<NewLicense> = {}) => {
      const issued = await stores().licenses.issue({ license: newLicense(overrides), now: NOW });
      if (issued.outcome !== 'issued') throw new Error('The license was not issued.');
      return issued.license;
    };

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

    describe("a license's activations, a page at a time", () => {
      test('oldest first, paged, with the total; with keys, only those', async () => {
        const { license_key: licenseKey } = await issue({ activation_limit: 0 });
        for (let i = 0; i < 7; i++) {
          await stores().licenses.claimSlot({
            licenseKey,
            activation: activation(`site-${i}.example`, {
              activated_at: new Date(EARLIER.getTime() + i * 1000),
            }),
            now: NOW,
          });
        }
        const page = (n: number, keys: string[] | null = null) =>
          stores().licenses.listActivations({
            licenseKey,
            identifierKeys: keys,
            page: n,
            perPage: 3,
          });
        const names = (found: Awaited<ReturnType<typeof page>>) =>
          found.activations.map((a) => a.identifier);
        expect(names(await page(1))).toEqual([
          'site-0.example',
          'site-1.example',
          'site-2.example',
        ]);
        expect(await page(3)).toMatchObject({ total: 7 });
        expect(names(await page(3))).toEqual(['site-6.example']);
        expect(await page(4)).toEqual({ activations: [], total: 7 });
        const one = await page(1, ['site-4.example', 'nothing.example']);
        expect(one.total).toBe(1);
        expect(one.activations[0]).toMatchObject({
          identifier: 'site-4.example',
          identifier_key: 'site-4.example',
          ip: '192.0.2.1',
          last_checkout_at: null,
        });
        expect(
          await stores().licenses.listActivations({
            licenseKey: uniqueKey(),
            identifierKeys: null,
            page: 1,
            perPage: 3,
          }),
        ).toEqual({ activations: [], total: 0 });
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

  describe(`${implementation}: activations (spec 3.2)`, () => {
    const openedStores = withOpened();
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
        await stores().licenses.listActivations({
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
    const stores = withStores();
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
          await stores().licenses.listActivations({
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

  describe(`${implementation}: spec 3.1 expiry (scheduled task)`, () => {
    const stores = withStores();

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

  describe(`${implementation}: the figures of the admin overview`, () => {
    const stores = withStores();

    test('active licenses, the slots they take and those expiring soon; per product or of all', async () => {
      const soon = new Date(NOW.getTime() + 10 * DAY);
      const by = new Date(NOW.getTime() + 30 * DAY);
      const issued = {
        never: newLicense({ product_id: 71, expires_at: null }),
        soon: newLicense({ product_id: 71, expires_at: soon }),
        atTheEnd: newLicense({ product_id: 72, expires_at: by }),
        later: newLicense({ product_id: 72, expires_at: LATER }),
        // Not counted: past its date (reported expired), suspended, expired.
        pastDue: newLicense({ product_id: 71, expires_at: EARLIER }),
        suspended: newLicense({ product_id: 71, status: 'suspended', expires_at: soon }),
        expired: newLicense({ product_id: 72, status: 'expired' }),
      };
      for (const license of Object.values(issued)) {
        await stores().licenses.issue({ license, now: NOW });
      }
      const claim = (license: NewLicense, identifier: string, exempt = false) =>
        stores().licenses.claimSlot({
          licenseKey: license.license_key,
          activation: activation(identifier, { exempt }),
          now: new Date(EARLIER.getTime() - DAY),
        });
      await claim(issued.never, 'one.example');
      await claim(issued.never, 'two.example');
      await claim(issued.soon, 'three.example');
      await claim(issued.soon, 'staging.example', true);
      await claim(issued.later, 'four.example');
      await claim(issued.pastDue, 'five.example');

      const figures = (productId: number | null) =>
        stores().licenses.currentFigures({ productId, now: NOW, expiringBy: by });
      await expect(figures(null)).resolves.toEqual({ active: 4, activationsInUse: 4, expiring: 2 });
      await expect(figures(71)).resolves.toEqual({ active: 2, activationsInUse: 3, expiring: 1 });
      await expect(figures(72)).resolves.toEqual({ active: 2, activationsInUse: 1, expiring: 1 });
      await expect(figures(73)).resolves.toEqual({ active: 0, activationsInUse: 0, expiring: 0 });
    });
  });

  describe(`${implementation}: plans (spec 2.1)`, () => {
    const stores = withStores();
    // Plan names are unique: each plan of the group has its own.
    const plans = () => ({
      name: `Agency ${randomBytes(4).toString('hex')}`,
      activation_type: 'domain' as const,
      activation_limit: 25,
      ...NO_LEASE,
    });

    test('plans get ids from a sequence, are found by id and listed by id', async () => {
      const plan = plans();
      const first = await stores().plans.create({ now: NOW, plan });
      const second = await stores().plans.create({ now: NOW, plan: plans() });
      if (first.outcome !== 'created' || second.outcome !== 'created')
        throw new Error('not created');
      expect(first.plan).toEqual({ ...plan, id: expect.any(Number), created_at: expect.any(Date) });
      expect(second.plan.id).toBeGreaterThan(first.plan.id);
      expect(await stores().plans.find(first.plan.id)).toEqual(first.plan);
      const listed = await stores().plans.list();
      expect(listed.map((p) => p.id)).toEqual([...listed.map((p) => p.id)].sort((a, b) => a - b));
      expect(listed).toEqual(expect.arrayContaining([first.plan, second.plan]));
    });

    test('a chosen id is used; a chosen id already taken creates nothing', async () => {
      const id = 900_000 + Math.floor(Math.random() * 1000);
      const plan = plans();
      expect(await stores().plans.create({ now: NOW, plan, id })).toMatchObject({
        outcome: 'created',
        plan: { id },
      });
      expect(await stores().plans.create({ now: NOW, plan: plans(), id })).toEqual({
        outcome: 'id-taken',
      });
      expect((await stores().plans.find(id))?.name).toBe(plan.name);
    });

    test('the sequence skips ids an admin chose', async () => {
      const before = await stores().plans.create({ now: NOW, plan: plans() });
      if (before.outcome !== 'created') throw new Error('not created');
      await stores().plans.create({ now: NOW, plan: plans(), id: before.plan.id + 1 });
      const after = await stores().plans.create({ now: NOW, plan: plans() });
      expect(after).toMatchObject({ outcome: 'created', plan: { id: before.plan.id + 2 } });
    });

    test('an unknown id finds nothing', async () => {
      expect(await stores().plans.find(987_654_321)).toBeNull();
    });

    test('a write check that throws stops the creation before anything is written', async () => {
      const count = (await stores().plans.list()).length;
      const plan = plans();
      const stop = () => {
        throw new Error('deadline passed');
      };
      await expect(
        stores().plans.create({ now: NOW, plan, beforeEachWrite: stop }),
      ).rejects.toThrow('deadline passed');
      await expect(
        stores().plans.create({ now: NOW, plan, id: 990_001, beforeEachWrite: stop }),
      ).rejects.toThrow('deadline passed');
      expect(await stores().plans.list()).toHaveLength(count);
    });
  });

  describe(`${implementation}: rejected attempts (spec 2.5)`, () => {
    const stores = withStores();
    const record = (licenseKey: string, identifier: string, at = NOW) =>
      stores().rejectedAttempts.record({
        licenseKey,
        identifier,
        name: null,
        reason: 'limit_reached',
        source: 'api',
        at,
      });

    test('one row per identifier, in any letter case, with its count of tries', async () => {
      const licenseKey = uniqueKey();
      await record(licenseKey, 'PC-One', EARLIER);
      await record(licenseKey, 'pc-one', NOW);
      await record(licenseKey, 'PC-Two', EARLIER);
      expect(await stores().rejectedAttempts.listForLicense(licenseKey)).toEqual([
        {
          license_key: licenseKey,
          identifier: 'pc-one',
          identifier_key: 'pc-one',
          name: null,
          reason: 'limit_reached',
          source: 'api',
          tries: 2,
          last_attempt_at: NOW,
        },
        {
          license_key: licenseKey,
          identifier: 'PC-Two',
          identifier_key: 'pc-two',
          name: null,
          reason: 'limit_reached',
          source: 'api',
          tries: 1,
          last_attempt_at: EARLIER,
        },
      ]);
    });

    test("a row keeps the last try's name, reason and source", async () => {
      const licenseKey = uniqueKey();
      const attempts = stores().rejectedAttempts;
      await attempts.record({
        licenseKey,
        identifier: 'shop.example',
        name: 'Main shop',
        reason: 'limit_reached',
        source: 'api',
        at: EARLIER,
      });
      await attempts.record({
        licenseKey,
        identifier: 'shop.example',
        name: null,
        reason: 'expired',
        source: 'admin',
        at: NOW,
      });
      expect(await attempts.listForLicense(licenseKey)).toEqual([
        expect.objectContaining({ name: null, reason: 'expired', source: 'admin', tries: 2 }),
      ]);
    });

    test('rows belong to their license', async () => {
      const [one, other] = [uniqueKey(), uniqueKey()];
      await record(one, 'a.com');
      await record(other, 'a.com');
      expect(await stores().rejectedAttempts.listForLicense(one)).toHaveLength(1);
      expect(await stores().rejectedAttempts.listForLicense(uniqueKey())).toEqual([]);
    });

    test('first refusals that race count as tries of one row', async () => {
      const licenseKey = uniqueKey();
      await Promise.all(Array.from({ length: 5 }, () => record(licenseKey, 'a.com')));
      expect(await stores().rejectedAttempts.listForLicense(licenseKey)).toEqual([
        expect.objectContaining({ identifier: 'a.com', tries: 5 }),
      ]);
    });

    test('a write check that throws stops the record before anything is written', async () => {
      const licenseKey = uniqueKey();
      await expect(
        stores().rejectedAttempts.record({
          licenseKey,
          identifier: 'a.com',
          name: null,
          reason: 'expired',
          source: 'api',
          at: NOW,
          beforeEachWrite: () => {
            throw new Error('deadline passed');
          },
        }),
      ).rejects.toThrow('deadline passed');
      expect(await stores().rejectedAttempts.listForLicense(licenseKey)).toEqual([]);
    });

    test('rows untouched since a date, that date included, are pruned; fresher ones stay', async () => {
      const licenseKey = uniqueKey();
      const cutoff = new Date(NOW.getTime() - 90 * DAY);
      await record(licenseKey, 'old.example', new Date(cutoff.getTime() - DAY));
      await record(licenseKey, 'edge.example', cutoff);
      await record(licenseKey, 'recent.example', new Date(cutoff.getTime() + 1));
      expect(await stores().rejectedAttempts.pruneUntouchedSince(cutoff)).toBe(2);
      expect(
        (await stores().rejectedAttempts.listForLicense(licenseKey)).map((r) => r.identifier),
      ).toEqual(['recent.example']);
    });
  });

  describe(`${implementation}: spec 3.3 plan changes and renewals`, () => {
    const stores = withStores();
    const issue = async (overrides: Partial<NewLicense> = {}) => {
      const issued = await stores().licenses.issue({ license: newLicense(overrides), now: NOW });
      if (issued.outcome !== 'issued') throw new Error('The license was not issued.');
      return issued.license;
    };
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

  describe(`${implementation}: admin search`, () => {
    const stores = withStores();
    const prefix = `s${randomBytes(4).toString('hex')}`;
    /** By name, in the order they are issued. */
    const keys = {
      plain: `${prefix}-plain`,
      pastDue: `${prefix}-past-due`,
      expired: `${prefix}.expired`,
      suspended: `${prefix}-suspended`,
      later: `${prefix}-later`,
    };
    const noFilters: LicenseFilters = { productId: null, planId: null, status: null, text: null };
    const search = async (
      filters: Partial<LicenseFilters>,
      page = 1,
      perPage = 50,
      order: LicenseOrder = NEWEST_FIRST,
    ) =>
      stores().licenses.search({
        filters: { ...noFilters, ...filters },
        now: NOW,
        order,
        page,
        perPage,
      });
    const found = async (filters: Partial<LicenseFilters>) =>
      (await search(filters)).licenses.map((l) => l.license_key);
    const text = (
      keyPrefix: string | null,
      identifierKeys: string[] = [],
      {
        customerEmail = null,
        metadataValues = [],
      }: Partial<NonNullable<LicenseFilters['text']>> = {},
    ) => ({ text: { keyPrefix, identifierKeys, customerEmail, metadataValues } });
    /** The whole list in an order, read by `scan` in batches of `limit`; the batches' sizes too. */
    const scanned = async (
      order: LicenseOrder,
      limit: number,
      filters: Partial<LicenseFilters> = {},
    ) => {
      const keys: string[] = [];
      const sizes: number[] = [];
      let after: ListCursor | null = null;
      for (let round = 0; ; round++) {
        if (round > 10)
          throw new Error(
            `a scan that does not end: ${JSON.stringify({ order, limit, keys, after })}`,
          );
        const batch: { licenses: LicenseRecord[]; next: ListCursor | null } =
          await stores().licenses.scan({
            filters: { ...noFilters, ...filters },
            now: NOW,
            order,
            after,
            limit,
          });
        keys.push(...batch.licenses.map((l) => l.license_key));
        sizes.push(batch.licenses.length);
        if (batch.next === null) return { keys, sizes };
        after = batch.next;
      }
    };

    beforeAll(async () => {
      const issued: Array<[string, Partial<NewLicense>]> = [
        [keys.plain, { product_id: 10, plan_id: 1 }],
        [
          keys.pastDue,
          {
            product_id: 10,
            plan_id: 2,
            expires_at: EARLIER,
            customer: { email: 'amy@example.org', name: null },
            metadata: { crm: 'shared' },
          },
        ],
        [keys.expired, { product_id: 11, plan_id: 1, status: 'expired', expires_at: EARLIER }],
        [
          keys.suspended,
          { product_id: 11, plan_id: 2, status: 'suspended', activation_type: 'device' },
        ],
        [
          keys.later,
          {
            product_id: 10,
            plan_id: 1,
            expires_at: LATER,
            customer: { email: 'jane@example.com', name: 'Jane' },
            metadata: { order_id: 'A-1001', crm: 'shared' },
          },
        ],
      ];
      for (const [license_key, overrides] of issued) {
        await stores().licenses.issue({
          license: newLicense({ license_key, ...overrides }),
          now: NOW,
        });
      }
      await stores().licenses.claimSlot({
        licenseKey: keys.plain,
        activation: activation('shop.example'),
        now: NOW,
      });
      await stores().licenses.update({
        now: NOW,
        licenseKey: keys.suspended,
        changes: { status: 'active' },
      });
      await stores().licenses.claimSlot({
        licenseKey: keys.suspended,
        activation: activation('PC-One'),
        now: NOW,
      });
      await stores().licenses.update({
        now: NOW,
        licenseKey: keys.suspended,
        changes: { status: 'suspended' },
      });
    });

    test('without filters: every license, newest first (the later issued first), and the total', async () => {
      const all = await search({});
      expect(all.total).toBe(5);
      expect(all.licenses.map((l) => l.license_key)).toEqual(Object.values(keys).reverse());
      const dates = all.licenses.map((l) => l.created_at.getTime());
      expect(dates).toEqual([...dates].sort((a, b) => b - a));
      expect(all.licenses[4]).toEqual(await stores().licenses.findByKey(keys.plain));
    });

    test('pages of per_page in order, each with the total of all; a page past the end is empty', async () => {
      const order = Object.values(keys).reverse();
      const pages = await Promise.all([1, 2, 3, 4].map((page) => search({}, page, 2)));
      expect(pages.map((p) => p.licenses.map((l) => l.license_key))).toEqual([
        order.slice(0, 2),
        order.slice(2, 4),
        order.slice(4),
        [],
      ]);
      expect(pages.map((p) => p.total)).toEqual([5, 5, 5, 5]);
    });

    test('by product and by plan, each alone and together', async () => {
      expect(await found({ productId: 10 })).toEqual([keys.later, keys.pastDue, keys.plain]);
      expect(await found({ planId: 2 })).toEqual([keys.suspended, keys.pastDue]);
      expect(await found({ productId: 11, planId: 1 })).toEqual([keys.expired]);
      expect(await found({ productId: 99 })).toEqual([]);
      expect((await search({ productId: 10, planId: 1 })).total).toBe(2);
    });

    test('by reported status (spec 3.1): an active license past its date is expired, not active', async () => {
      expect(await found({ status: 'active' })).toEqual([keys.later, keys.plain]);
      expect(await found({ status: 'expired' })).toEqual([keys.expired, keys.pastDue]);
      expect(await found({ status: 'suspended' })).toEqual([keys.suspended]);
      expect(await found({ status: 'revoked' })).toEqual([]);
      expect(await found({ status: 'expired', productId: 10 })).toEqual([keys.pastDue]);
    });

    test('by a license key prefix: anchored, case-sensitive, its characters taken literally', async () => {
      expect(await found(text(prefix))).toEqual(Object.values(keys).reverse());
      expect(await found(text(`${prefix}-p`))).toEqual([keys.pastDue, keys.plain]);
      // `.` is a character of the key, not "any character".
      expect(await found(text(`${prefix}.`))).toEqual([keys.expired]);
      expect(await found(text(`${prefix}.*`))).toEqual([]);
      expect(await found(text(prefix.toUpperCase()))).toEqual([]);
      expect(await found(text('plain'))).toEqual([]);
    });

    test('by an activated identifier, through its key', async () => {
      expect(await found(text(null, ['shop.example']))).toEqual([keys.plain]);
      expect(await found(text(null, ['pc-one', 'nowhere.example']))).toEqual([keys.suspended]);
      expect(await found(text(null, ['shop']))).toEqual([]);
    });

    test('a key prefix or an identifier, with the other filters', async () => {
      expect(await found(text(`${prefix}-later`, ['shop.example']))).toEqual([
        keys.later,
        keys.plain,
      ]);
      expect(
        await found({
          ...text(`${prefix}-later`, ['shop.example']),
          planId: 1,
          status: 'active',
          productId: 10,
        }),
      ).toEqual([keys.later, keys.plain]);
      expect(await found({ ...text(null, ['shop.example']), status: 'expired' })).toEqual([]);
    });

    test('a text with neither a key prefix nor identifier keys matches nothing', async () => {
      expect(await search(text(null, []))).toEqual({ licenses: [], total: 0 });
    });

    test("by a customer's e-mail address, exactly", async () => {
      expect(await found(text(null, [], { customerEmail: 'jane@example.com' }))).toEqual([
        keys.later,
      ]);
      expect(await found(text(null, [], { customerEmail: 'jane@example' }))).toEqual([]);
      expect(await found(text(null, [], { customerEmail: 'JANE@example.com' }))).toEqual([]);
    });

    test('by a metadata value under any key, exactly', async () => {
      expect(await found(text(null, [], { metadataValues: ['A-1001'] }))).toEqual([keys.later]);
      expect(await found(text(null, [], { metadataValues: ['shared'] }))).toEqual([
        keys.later,
        keys.pastDue,
      ]);
      expect(
        await found(text(null, [], { metadataValues: ['A-100', 'a-1001', 'order_id'] })),
      ).toEqual([]);
      expect(
        await found({ ...text(null, [], { metadataValues: ['shared'] }), status: 'expired' }),
      ).toEqual([keys.pastDue]);
    });

    test('ordered by each field, both ways; ties by the order issued in, the same way', async () => {
      const byIssue = Object.values(keys);
      const order = async (field: LicenseOrder['field'], descending: boolean) =>
        (await search({}, 1, 50, { field, descending })).licenses.map((l) => l.license_key);
      // All were issued at NOW: the issue order breaks every tie.
      expect(await order('created_at', false)).toEqual(byIssue);
      expect(await order('created_at', true)).toEqual([...byIssue].reverse());
      // No expiry (null) comes first ascending, last descending.
      const byExpiry = [keys.plain, keys.suspended, keys.pastDue, keys.expired, keys.later];
      expect(await order('expires_at', false)).toEqual(byExpiry);
      expect(await order('expires_at', true)).toEqual([...byExpiry].reverse());
      const byKey = [...byIssue].sort();
      expect(await order('license_key', false)).toEqual(byKey);
      expect(await order('license_key', true)).toEqual([...byKey].reverse());
      // Without a customer first ascending (amy@example.org before jane@example.com).
      const byEmail = [keys.plain, keys.expired, keys.suspended, keys.pastDue, keys.later];
      expect(await order('customer_email', false)).toEqual(byEmail);
      expect(await order('customer_email', true)).toEqual([...byEmail].reverse());
    });

    test('pages of an order: each page goes on where the one before ended', async () => {
      const order: LicenseOrder = { field: 'expires_at', descending: true };
      const pages = await Promise.all([1, 2, 3].map((page) => search({}, page, 2, order)));
      expect(pages.flatMap((p) => p.licenses.map((l) => l.license_key))).toEqual(
        (await search({}, 1, 50, order)).licenses.map((l) => l.license_key),
      );
    });

    test('read in batches, every order gives the whole list in the order of a search, each license once', async () => {
      const fields = ['created_at', 'expires_at', 'license_key', 'customer_email'] as const;
      for (const field of fields) {
        for (const descending of [false, true]) {
          const order = { field, descending };
          const listed = (await search({}, 1, 50, order)).licenses.map((l) => l.license_key);
          for (const limit of [1, 2, 5]) {
            expect({ field, descending, limit, keys: (await scanned(order, limit)).keys }).toEqual({
              field,
              descending,
              limit,
              keys: listed,
            });
          }
        }
      }
    });

    test('batches hold at most their limit; a batch that is not full is the last', async () => {
      expect((await scanned(NEWEST_FIRST, 2)).sizes).toEqual([2, 2, 1]);
      expect((await scanned(NEWEST_FIRST, 5)).sizes).toEqual([5, 0]);
      expect((await scanned(NEWEST_FIRST, 6)).sizes).toEqual([5]);
    });

    test('batches keep to the filters', async () => {
      expect((await scanned(NEWEST_FIRST, 1, { productId: 10 })).keys).toEqual([
        keys.later,
        keys.pastDue,
        keys.plain,
      ]);
      expect((await scanned(NEWEST_FIRST, 1, { status: 'expired' })).keys).toEqual([
        keys.expired,
        keys.pastDue,
      ]);
      expect((await scanned(NEWEST_FIRST, 1, text(null, []))).keys).toEqual([]);
    });
  });

  describe(`${implementation}: scheduled task runs (spec 2.5, 3.1)`, () => {
    const opened = withOpened();
    const stores = () => opened().stores;
    const run = (overrides: Partial<TaskRunRecord> = {}): TaskRunRecord => ({
      name: 'license-expiry',
      ran_at: NOW,
      trigger: 'scheduled',
      affected: 3,
      error: null,
      ...overrides,
    });

    test('no task has run yet', async () => {
      expect(await stores().taskRuns.lastRuns()).toEqual([]);
    });

    test('each task keeps its last run, one per task; a later run replaces it', async () => {
      await stores().taskRuns.recordRun(run({ ran_at: EARLIER }));
      await stores().taskRuns.recordRun(run({ name: 'rejected-attempt-pruning', affected: 0 }));
      await stores().taskRuns.recordRun(run({ trigger: 'on-demand', affected: 1 }));
      const runs = await stores().taskRuns.lastRuns();
      expect(runs).toHaveLength(2);
      expect(runs).toEqual(
        expect.arrayContaining([
          run({ trigger: 'on-demand', affected: 1 }),
          run({ name: 'rejected-attempt-pruning', affected: 0 }),
        ]),
      );
    });

    test('a run that started before the one kept is not kept', async () => {
      await stores().taskRuns.recordRun(run({ ran_at: LATER, affected: 5 }));
      await stores().taskRuns.recordRun(run({ ran_at: NOW, affected: 9 }));
      expect((await stores().taskRuns.lastRuns()).find((r) => r.name === 'license-expiry')).toEqual(
        run({ ran_at: LATER, affected: 5 }),
      );
    });

    test('a failed run is kept with its error and no count', async () => {
      const failed = run({
        name: 'rejected-attempt-pruning',
        ran_at: LATER,
        affected: null,
        error: 'database unavailable',
      });
      await stores().taskRuns.recordRun(failed);
      expect(
        (await stores().taskRuns.lastRuns()).find((r) => r.name === 'rejected-attempt-pruning'),
      ).toEqual(failed);
    });

    test("the next scheduled run is the scheduler's record of the job; none without one", async () => {
      expect(await stores().taskRuns.nextScheduledRun({ jobName: 'license.some-job' })).toBeNull();
      await opened().scheduleJob('license.some-job', LATER);
      await opened().scheduleJob('license.other-job', null);
      expect(await stores().taskRuns.nextScheduledRun({ jobName: 'license.some-job' })).toEqual(
        LATER,
      );
      expect(await stores().taskRuns.nextScheduledRun({ jobName: 'license.other-job' })).toBeNull();
    });
  });
}
