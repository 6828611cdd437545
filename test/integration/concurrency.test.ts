import { bootSystem, type TestSystem } from '../support/system.js';

/**
 * Issue: the activation limit holds under concurrency, with single-document atomic updates,
 * also with two license-service replicas taking requests from the same queue.
 */
describe.each([1, 2])(
  'spec 3.2 activation limit under concurrency (%i license replicas)',
  (replicas) => {
    let system: TestSystem;
    beforeAll(async () => {
      system = await bootSystem({}, { licenseReplicas: replicas });
    });
    afterAll(() => system?.stop());

    test('30 simultaneous activations of distinct identifiers on a limit of 5 give exactly 5 successes', async () => {
      const { key } = await system.license({ activation_limit: 5 });
      const responses = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          system.post('activate', { license_key: key, identifier: `site-${i}.example` }),
        ),
      );
      const ok = responses.filter((r) => r.status === 200);
      const refused = responses.filter((r) => r.status === 403);
      expect(ok).toHaveLength(5);
      expect(refused).toHaveLength(25);
      for (const r of refused) expect(r.body.error.code).toBe('ACTIVATION_LIMIT_REACHED');
      const license = await system.transport.call('license.getLicense', { license_key: key });
      expect(license.activations_used).toBe(5);
      expect(license.rejected_attempts).toHaveLength(25);
    });

    test('30 simultaneous activations of one identifier give one activation and 30 successes', async () => {
      const { key } = await system.license({ activation_limit: 5 });
      const responses = await Promise.all(
        Array.from({ length: 30 }, () =>
          system.post('activate', { license_key: key, identifier: 'same.example' }),
        ),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(30).fill(200));
      for (const r of responses) expect(r.body.data.activations_used).toBe(1);
      const license = await system.transport.call('license.getLicense', { license_key: key });
      expect(license.activations).toHaveLength(1);
    });

    test('spec 3.3: lowering the limit while activations race never leaves more than the new limit', async () => {
      for (let round = 0; round < 3; round++) {
        const { key } = await system.license({ activation_limit: 10 });
        for (const site of ['a', 'b', 'c']) {
          await system.post('activate', { license_key: key, identifier: `${site}.example` });
        }
        const [lowered] = await Promise.allSettled([
          system.transport.call('license.updateLicense', { license_key: key, activation_limit: 4 }),
          ...Array.from({ length: 8 }, (_, i) =>
            system.post('activate', { license_key: key, identifier: `race-${i}.example` }),
          ),
        ]);
        const license = await system.transport.call('license.getLicense', { license_key: key });
        if (lowered.status === 'fulfilled') {
          // The new limit took effect with at most 4 activations in use, and held after.
          expect(license.activation_limit).toBe(4);
          expect(license.activations_used).toBeLessThanOrEqual(4);
        } else {
          expect(lowered.reason).toMatchObject({ code: 'ACTIVATION_LIMIT_TOO_LOW' });
          expect(license.activation_limit).toBe(10);
          expect(license.activations_used).toBeGreaterThan(4);
        }
      }
    });
  },
);
