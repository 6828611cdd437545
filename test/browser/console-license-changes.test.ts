import {
  system,
  browser,
  product,
  plans,
  admin,
  issue,
  activated,
  openLicense,
  overflows,
  alertText,
} from '../support/admin-console.js';
import { expectClean, openConsole, signIn } from '../support/browser.js';
import { screenshot } from '../support/started-system.js';

/**
 * The admin console's changes of a license: its limit refused when below the activations in use
 * or when it cannot be sent, plan changes now and at renewal, and a revoked license.
 * The system, the browser and what the tests share are in test/support/admin-console.ts.
 */

describe('the admin console', () => {
  test('a limit below the activations in use is refused, in words with the numbers', async () => {
    const key = await issue(plans.three);
    await activated(key, 'one.example');
    await activated(key, 'two.example');
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, key);
      await page.getByLabel('Activation limit').fill('1');
      await page.getByRole('button', { name: 'Change limit' }).click();
      const text = await alertText(page);
      expect(text).toMatch(/A limit of 1 is below the 2 activations in use/);
      expect(text).toMatch(/at least 2/);
      expect(text).toMatch(/ACTIVATION_LIMIT_TOO_LOW/);
      await screenshot(page, 'console-limit-refused');
      const license = await admin<{ activation_limit: number }>('GET', `/licenses/${key}`);
      expect(license.activation_limit).toBe(3);

      // A limit that fits is taken at once.
      await page.getByLabel('Activation limit').fill('2');
      await page.getByRole('button', { name: 'Change limit' }).click();
      await page.getByText('The activation limit is now 2.').waitFor();
      await expect(page.locator('dl.facts').innerText()).resolves.toMatch(/2 of 2/);
      expectClean(session, [409]);
    } finally {
      await page.close();
    }
  });

  test('a plan change at renewal stays pending until a checkout renewal applies it; the status changes on demand', async () => {
    const key = await issue(plans.single);
    const session = await openConsole(browser, system);
    const { page } = session;
    const facts = () => page.locator('dl.facts').innerText();
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, key);
      await page
        .getByRole('combobox', { name: /^New plan/ })
        .selectOption({ label: 'Three sites (domain, limit 3)' });
      await page.getByLabel('At the next checkout renewal').check();
      await page.getByRole('button', { name: 'Change plan' }).click();
      await page.getByText('Three sites will apply at the next checkout renewal.').waitFor();
      await expect(facts()).resolves.toMatch(/Three sites, at the next checkout renewal/);

      await page.getByLabel('New expiry').fill('2100-01-31T12:00');
      await page.getByRole('button', { name: 'Renew', exact: true }).click();
      await page.getByText('Renewed: the license is active.').waitFor();
      const renewed = await facts();
      expect(renewed).toMatch(/Plan\s+Three sites/);
      expect(renewed).toMatch(/Activation limit\s+3/);
      expect(renewed).toMatch(/Pending plan change\s+None/);
      await expect(admin('GET', `/licenses/${key}`)).resolves.toMatchObject({
        plan_id: plans.three,
        activation_limit: 3,
        pending_plan: null,
        expires_at: expect.stringMatching(/^2100-01-31T/),
      });

      await page.getByRole('combobox', { name: /^Status/ }).selectOption('suspended');
      await page.getByRole('button', { name: 'Change status' }).click();
      await page.getByText('The status is now Suspended.').waitFor();
      await expect(facts()).resolves.toMatch(/Status\s+Suspended/);
      await screenshot(page, 'console-plan-change-and-renewal');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('a plan change that leaves activations over the new limit and changes the type says what it will do and asks first; Cancel changes nothing, confirming makes it', async () => {
    const fleet = await admin<{ id: number }>('POST', '/plans', {
      name: 'Six instances',
      activation_type: 'instance',
      activation_limit: 6,
    });
    const key = await issue(fleet.id);
    for (let n = 1; n <= 6; n += 1) await activated(key, `i-0a1b2c3d4e5f6789${n}`);
    const session = await openConsole(browser, system);
    const { page } = session;
    const dialog = page.getByRole('dialog', { name: 'Move this license to Single site?' });
    const choose = async () => {
      await page
        .getByRole('combobox', { name: /^New plan/ })
        .selectOption({ label: 'Single site (domain, limit 1)' });
      await page.getByRole('button', { name: 'Change plan' }).click();
      await dialog.waitFor();
    };
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, key);
      await choose();
      const said = await dialog.innerText();
      expect(said).toMatch(
        /The license has 6 activations and Single site allows 1\. All 6 stay, 5 over the limit, and no new activation is accepted until 5 are removed\./,
      );
      expect(said).toMatch(/activation type changes from instance to domain/);
      expect(said).not.toMatch(/cannot be undone/);
      await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe('Cancel');
      await screenshot(page, 'console-plan-change-confirmation');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      await expect(admin('GET', `/licenses/${key}`)).resolves.toMatchObject({
        plan_id: fleet.id,
        activation_type: 'instance',
        activation_limit: 6,
      });

      await choose();
      await dialog.getByRole('button', { name: 'Change plan' }).click();
      await page
        .getByText(
          'The license is now on Single site, with its limit, type, lease and exempt settings.',
        )
        .waitFor();
      const facts = await page.locator('dl.facts').innerText();
      expect(facts).toMatch(/Activation type\s+Domain/);
      expect(facts).toMatch(
        /Activations used\s+6 of 1 \(5 over the limit: no new activation until 5 are removed\)/,
      );
      await expect(admin('GET', `/licenses/${key}`)).resolves.toMatchObject({
        plan_id: plans.single,
        activation_type: 'domain',
        activations_used: 6,
      });
      // The dialog on a phone: its words and buttons within the screen.
      await page.setViewportSize({ width: 390, height: 800 });
      await page
        .getByRole('combobox', { name: /^New plan/ })
        .selectOption({ label: 'Six instances (instance, limit 6)' });
      await page.getByRole('button', { name: 'Change plan' }).click();
      const back = page.getByRole('dialog', { name: 'Move this license to Six instances?' });
      await back.waitFor();
      await expect(overflows(page)).resolves.toEqual([]);
      await screenshot(page, 'console-phone-plan-change-confirmation');
      await page.keyboard.press('Escape');
      // The API refused it unconfirmed, twice (409), before the dialog asked.
      expectClean(session, [409, 409, 409]);
    } finally {
      await page.close();
    }
  });

  test('a revoked license offers no Add and no Renew, and says why; an Add refused as the license is revoked meanwhile is said in words for the admin', async () => {
    const revoked = await issue(plans.three, product.id, { status: 'revoked' });
    const key = await issue(plans.three);
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, revoked);
      const activations = page.getByRole('region', { name: /^Activations/ });
      await expect(activations.innerText()).resolves.toMatch(
        /This license is revoked: no activation can be added to it\./,
      );
      await expect(
        activations.getByRole('button', { name: 'Add', exact: true }).count(),
      ).resolves.toBe(0);
      const renewal = page.getByRole('region', { name: 'Renew' });
      await expect(renewal.innerText()).resolves.toMatch(
        /This license is revoked: it cannot be renewed\. Issue a new license instead\./,
      );
      await expect(renewal.getByRole('button').count()).resolves.toBe(0);
      await screenshot(page, 'console-revoked-license');

      await page.getByRole('button', { name: 'Back to licenses' }).click();
      await openLicense(page, key);
      await admin('PATCH', `/licenses/${key}`, { status: 'revoked' });
      await page.getByLabel('Identifier').fill('late.example');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      const refusal = await alertText(page);
      expect(refusal).toBe(
        'This license is revoked, so no activation can be added, now or later. Issue a new ' +
          'license instead. (LICENSE_INVALID)',
      );
      expect(refusal).not.toMatch(/key is not valid/);
      expectClean(session, [409]);
    } finally {
      await page.close();
    }
  });

  test('a limit that cannot be sent says why beside the field; an old success is not left beside a new refusal', async () => {
    const key = await issue(plans.three);
    await activated(key, 'kept.example');
    const session = await openConsole(browser, system);
    const { page } = session;
    const limit = page.getByLabel('Activation limit');
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, key);
      await limit.fill('2');
      await page.getByRole('button', { name: 'Change limit' }).click();
      const done = page.getByText('The activation limit is now 2.');
      await done.waitFor();

      await limit.fill('-1');
      const problem = page.getByText(
        'The limit must be a whole number of 0 or more (0 means unlimited).',
      );
      await problem.waitFor();
      await expect(limit.getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(page.getByRole('button', { name: 'Change limit' }).isDisabled()).resolves.toBe(
        true,
      );
      await expect(done.count()).resolves.toBe(0);
      await screenshot(page, 'console-limit-not-a-number');

      // A success in one panel, then a refusal in another: only the refusal is said.
      await limit.fill('3');
      await page.getByRole('button', { name: 'Change limit' }).click();
      await page.getByText('The activation limit is now 3.').waitFor();
      await page.getByLabel('Identifier').fill('kept.example');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await expect(alertText(page)).resolves.toMatch(/already activated/);
      await expect(
        page.getByRole('status').filter({ hasText: 'The activation limit' }).count(),
      ).resolves.toBe(0);
      expectClean(session, [409]);
    } finally {
      await page.close();
    }
  });
});
