import { system, browser, product, admin, issue, openLicense } from '../support/admin-console.js';
import { expectClean, openConsole, signIn } from '../support/browser.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/**
 * The admin console's usage counters (docs/api-decisions.md, "Usage counters"): a plan made
 * with a cap per period, and a license's uses shown and reset on its page.
 * The system, the browser and what the tests share are in test/support/admin-console.ts.
 */

async function recordUses(key: string, increment: number): Promise<void> {
  const response = await fetch(`${system.gatewayUrl}${API_BASE}/licenses/usage`, {
    method: 'POST',
    body: new URLSearchParams({
      license_key: key,
      product_id: String(product.id),
      increment: String(increment),
      idempotency_key: `uses-${increment}-${key}`,
    }),
  });
  if (!response.ok) throw new Error(`usage: ${await response.text()}`);
}

describe('the admin console', () => {
  test('a plan gets uses per day; a license of it shows its uses and resets them', async () => {
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Products and plans' }).click();
      const newPlan = page.getByRole('form', { name: 'New plan' });
      await newPlan.getByLabel('Name').fill('Metered daily');
      await newPlan.getByLabel('Activation limit').fill('2');
      await newPlan.getByLabel('Uses per period (empty: not counted)').fill('500');
      await newPlan.getByLabel('Uses reset').selectOption('daily');
      await newPlan.getByRole('button', { name: 'Create plan' }).click();
      await page.getByText('Created Metered daily.').waitFor();
      const row = page.locator('tbody tr', { hasText: 'Metered daily' });
      await expect(row.innerText()).resolves.toMatch(/500 a day/);
      const { plans } = await admin<{ plans: Array<{ id: number; name: string }> }>(
        'GET',
        '/plans',
      );
      const plan = plans.find((p) => p.name === 'Metered daily')!;
      await expect(admin('GET', `/plans/${plan.id}`)).resolves.toMatchObject({
        max_uses: 500,
        uses_reset: 'daily',
      });

      const key = await issue(plan.id);
      await recordUses(key, 120);
      await page.getByRole('link', { name: 'Licenses', exact: true }).click();
      await openLicense(page, key);
      const usage = page.getByRole('region', { name: 'Usage' });
      await expect(usage.innerText()).resolves.toMatch(/120 of 500 uses this period; resets/);
      await usage.getByRole('button', { name: 'Reset usage' }).click();
      await page.getByText('The usage counter starts again from 0.').waitFor();
      await expect(usage.innerText()).resolves.toMatch(/0 of 500 uses/);
      await expect(admin('GET', `/licenses/${key}/usage`)).resolves.toMatchObject({ uses: 0 });
      expectClean(session);
    } finally {
      await page.close();
    }
  });
});
