import { system, browser, plans, admin, issue, openLicense } from '../support/admin-console.js';
import { expectClean, openConsole, signIn } from '../support/browser.js';

/**
 * The admin console's entitlements: defined and deleted on the catalog page, and a license's own
 * added (with a date) and removed on its page. The system and the browser are those of
 * test/support/admin-console.ts.
 */

describe('the admin console: entitlements', () => {
  test('an entitlement is created on the catalog page, given to a license and taken away', async () => {
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Products and plans' }).click();
      const form = page.getByRole('form', { name: 'New entitlement' });
      await form.getByLabel('Code').fill('addon-sync');
      await form.getByLabel('Name').fill('Sync add-on');
      await form.getByRole('button', { name: 'Create entitlement' }).click();
      await page.getByText('Created addon-sync.').waitFor();
      const region = page.getByRole('region', { name: 'Entitlements' });
      await expect(
        region.locator('tbody tr', { hasText: 'addon-sync' }).innerText(),
      ).resolves.toMatch(/Sync add-on/);

      const key = await issue(plans.three);
      await page.getByRole('link', { name: 'Licenses', exact: true }).click();
      await openLicense(page, key);
      const own = page.getByRole('form', { name: 'Add an entitlement' });
      await own.getByLabel('Entitlement code').fill('addon-sync');
      await own.getByLabel('Until').fill('2099-12-31');
      await own.getByRole('button', { name: 'Add entitlement' }).click();
      await page.getByText('Added addon-sync.').waitFor();
      const stored = await admin<{ entitlements: { code: string; expires_at: string | null }[] }>(
        'GET',
        `/licenses/${key}`,
      );
      expect(stored.entitlements).toEqual([
        expect.objectContaining({ code: 'addon-sync', expires_at: '2099-12-31T23:59:59.000Z' }),
      ]);

      await page.getByRole('button', { name: 'Remove entitlement addon-sync' }).click();
      await page.getByText('Removed addon-sync.').waitFor();
      const after = await admin<{ entitlements: unknown[] }>('GET', `/licenses/${key}`);
      expect(after.entitlements).toEqual([]);
      await expectClean(session);
    } finally {
      await page.close();
    }
  });
});
