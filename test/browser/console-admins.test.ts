import { createHmac } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { API_BASE, type AdminWithToken, type AuditPage } from '../../libs/contracts/index.js';
import {
  downloadedText,
  expectClean,
  launchBrowser,
  openConsole,
  pageWidth,
  signIn,
} from '../support/browser.js';
import { eventually } from '../support/eventually.js';
import {
  adminCall,
  screenshot,
  startLikeNpmStart,
  type StartedSystem,
} from '../support/started-system.js';
import { storeFixture } from '../support/store-fixtures.js';

/**
 * The console's Admins and Audit log pages, and what a role that may not change things sees,
 * in a real browser on the system as `npm start` starts it. Screenshots at 1280 and 390 pixels
 * wide; each test checks its page for CSP violations, console errors and dialogs.
 */

let system: StartedSystem;
let browser: Browser;

const admin = <T>(method: string, path: string, body?: object, token = system.adminToken) =>
  adminCall<T>({ ...system, adminToken: token }, method, path, body);

const PHONE = { width: 390, height: 844 };
const WIDE = { width: 1280, height: 800 };

/** The card of an admin on the Admins page. */
const card = (page: Page, name: string) =>
  page.locator('section.admin-card', { has: page.getByRole('heading', { name, level: 2 }) });

beforeAll(async () => {
  [system, browser] = await Promise.all([
    startLikeNpmStart({ SCHEDULED_TASKS: 'off' }),
    launchBrowser(),
  ]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

describe('the Admins page', () => {
  test('an owner adds an admin with a role and sees their token once; makes and revokes tokens; changes a role; removes an admin', async () => {
    const session = await openConsole(browser, system, { viewport: WIDE });
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await expect(page.locator('.topbar .who').innerText()).resolves.toMatch(/Bootstrap owner/);
      await page.getByRole('link', { name: 'Admins' }).click();
      await page.getByRole('heading', { name: 'Admins', level: 1 }).waitFor();

      const form = page.getByRole('form', { name: 'New admin' });
      await form.getByLabel('Name').fill('Sam Support');
      await form.getByLabel('Role').selectOption({ label: 'Support' });
      await form.getByRole('button', { name: 'Add admin' }).click();
      const notice = page.locator('section.secret');
      await notice.getByRole('heading', { name: 'Token of Sam Support' }).waitFor();
      const token = await notice.locator('[data-secret]').innerText();
      expect(token).toMatch(/^adm_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
      await expect(notice.innerText()).resolves.toMatch(/will not be shown again/);
      await notice.getByRole('button', { name: 'Copy' }).click();
      await notice.getByRole('status').waitFor();
      await card(page, 'Sam Support').waitFor();
      await screenshot(page, 'console-admins-token');
      // The token signs in: the API knows Sam as support.
      await expect(admin<{ role: string }>('GET', '/me', undefined, token)).resolves.toMatchObject({
        name: 'Sam Support',
        role: 'support',
      });
      await notice.getByRole('button', { name: 'I have copied it' }).click();
      await expect(page.locator('section.secret').count()).resolves.toBe(0);
      await expect(page.locator('body').innerText()).resolves.not.toContain(token);

      // Another token, shown once too; then one revoked after a confirmation.
      const sam = card(page, 'Sam Support');
      await sam.getByRole('button', { name: 'New token' }).click();
      await page.locator('section.secret').waitFor();
      const second = await page.locator('section.secret [data-secret]').innerText();
      await page.getByRole('button', { name: 'I have copied it' }).click();
      await sam.locator('tbody tr').nth(1).waitFor();
      const secondId = second.split('_')[1]!;
      await sam.getByRole('button', { name: `Revoke token ${secondId}` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Revoke token' }).click();
      await sam.locator('tbody tr').nth(1).waitFor({ state: 'detached' });
      await expect(sam.locator('tbody tr').count()).resolves.toBe(1);
      await expect(admin('GET', '/me', undefined, second)).rejects.toThrow(/UNAUTHORIZED/);

      // The only named owner cannot be made a viewer: refused in words.
      await form.getByLabel('Name').fill('Olga Owner');
      await form.getByLabel('Role').selectOption({ label: 'Owner' });
      await form.getByRole('button', { name: 'Add admin' }).click();
      await page.getByRole('button', { name: 'I have copied it' }).click();
      const olga = card(page, 'Olga Owner');
      await olga.getByLabel('Role').selectOption({ label: 'Viewer' });
      await olga.getByRole('button', { name: 'Save' }).click();
      await expect(olga.getByRole('alert').innerText()).resolves.toMatch(
        /last owner must stay an owner.*make another admin an owner first/i,
      );
      await screenshot(page, 'console-admins-last-owner');

      // Sam becomes a viewer, then is removed after a confirmation.
      await sam.getByLabel('Role').selectOption({ label: 'Viewer' });
      await sam.getByRole('button', { name: 'Save' }).click();
      await sam.locator('.badge.role-viewer').waitFor();
      await sam.getByRole('button', { name: 'Remove Sam Support' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Remove admin' }).click();
      await card(page, 'Sam Support').waitFor({ state: 'detached' });
      await screenshot(page, 'console-admins');
      expectClean(session, [409]);
    } finally {
      await page.close();
    }
  });

  test('fits a phone-sized screen', async () => {
    await admin('POST', '/admins', { name: 'Phil Phone', role: 'support' });
    const session = await openConsole(browser, system, { viewport: PHONE });
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Admins' }).click();
      await card(page, 'Phil Phone').waitFor();
      await expect(pageWidth(page)).resolves.toBeLessThanOrEqual(PHONE.width);
      await screenshot(page, 'console-phone-admins');
      expectClean(session);
    } finally {
      await page.close();
    }
  });
});

/**
 * A Lemon Squeezy connection selling a new plan, and its paid order delivered to the gateway as
 * the store delivers it, signed; resolves once the license it made is in the audit log.
 */
async function storeSale(): Promise<{ id: number; name: string }> {
  const secret = 'lemon-signing-secret-from-the-store';
  const product = await admin<{ id: number }>('POST', '/products', { title: 'Sold Plugin' });
  const plan = await admin<{ id: number }>('POST', '/plans', {
    name: 'Sold plan',
    activation_type: 'domain',
    activation_limit: 1,
  });
  const connection = await admin<{ id: number; name: string }>('POST', '/store-connections', {
    name: 'Lemon shop',
    provider: 'lemonsqueezy',
    mode: 'live',
    signing_secret: secret,
  });
  await admin('POST', `/store-connections/${connection.id}/mappings`, {
    external_id: '455',
    product_id: product.id,
    plan_id: plan.id,
  });
  const body = storeFixture('lemonsqueezy', 'order_created');
  const delivered = await fetch(`${system.gatewayUrl}${API_BASE}/stores/${connection.id}/events`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'X-Signature': createHmac('sha256', secret).update(body).digest('hex'),
      'X-Event-Name': 'order_created',
    },
    body,
  });
  expect(delivered.status).toBe(200);
  await eventually('the sale in the audit log', async () => {
    const log = await admin<AuditPage>('GET', '/audit-log?source=store_event');
    return log.total > 0;
  });
  return connection;
}

describe('the Audit log page', () => {
  let editor: AdminWithToken;
  let shop: { id: number; name: string };
  beforeAll(async () => {
    shop = await storeSale();
    editor = await admin<AdminWithToken>('POST', '/admins', {
      name: 'Edith Editor',
      role: 'owner',
    });
    const product = await admin<{ id: number }>(
      'POST',
      '/products',
      { title: 'Audited Plugin' },
      editor.token,
    );
    await admin('PATCH', `/products/${product.id}`, { title: 'Audited Plugin Pro' }, editor.token);
  });

  test('lists the changes with who made them and their fields before and after; filters; downloads the CSV', async () => {
    const session = await openConsole(browser, system, { viewport: WIDE });
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Audit log' }).click();
      await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
      await page.locator('main tbody tr').first().waitFor();

      await page
        .getByLabel('Admin', { exact: true })
        .selectOption({ label: `Edith Editor (#${editor.id})` });
      await page.getByLabel('Action').fill('updateProduct');
      await page.getByRole('button', { name: 'Filter' }).click();
      const row = page.locator('main tbody tr');
      await row.nth(1).waitFor({ state: 'detached' });
      await expect(row.count()).resolves.toBe(1);
      const text = await row.innerText();
      expect(text).toContain('Edith Editor');
      expect(text).toContain('Update product');
      expect(await row.locator('dl.changes del').first().innerText()).toBe('Audited Plugin');
      expect(await row.locator('dl.changes ins').first().innerText()).toBe('Audited Plugin Pro');
      await screenshot(page, 'console-audit-log');

      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Download CSV' }).click();
      const file = await download;
      expect(file.suggestedFilename()).toMatch(
        /^audit-log-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}Z\.csv$/,
      );
      const csv = await downloadedText(file);
      const lines = csv.trimEnd().split('\r\n');
      expect(lines[0]).toBe(
        'at,admin_id,admin_name,action,target,before,after,source,source_detail',
      );
      expect(lines).toHaveLength(2);
      expect(lines[1]).toContain('Edith Editor,updateProduct,product:');
      await page.getByRole('status').filter({ hasText: 'Saved audit-log-' }).waitFor();
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test("a store's license change names the store and its event, not an admin; filtered by source", async () => {
    const session = await openConsole(browser, system, { viewport: WIDE });
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Audit log' }).click();
      await page.locator('main tbody tr').first().waitFor();
      await page.getByLabel('Made by').selectOption({ label: "Stores' events" });
      await page.getByRole('button', { name: 'Filter' }).click();
      const rows = page.locator('main tbody tr');
      await rows.nth(1).waitFor({ state: 'detached' });
      await expect(rows.count()).resolves.toBe(1);
      const row = rows.first();
      expect(await row.innerText()).toContain('Create license');
      const text = await row.innerText();
      expect(text).toContain(`Store: ${shop.name} (#${shop.id}, Lemon Squeezy)`);
      expect(text).toMatch(/Event order_created \S+/);
      expect(text).toMatch(/license:key#[0-9a-f]{12}/);
      await screenshot(page, 'console-audit-log-store');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('fits a phone-sized screen', async () => {
    const session = await openConsole(browser, system, { viewport: PHONE });
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Audit log' }).click();
      await page.locator('main tbody tr').first().waitFor();
      await expect(pageWidth(page)).resolves.toBeLessThanOrEqual(PHONE.width);
      await screenshot(page, 'console-phone-audit-log');
      expectClean(session);
    } finally {
      await page.close();
    }
  });
});

describe('a viewer', () => {
  let viewer: AdminWithToken;
  let key: string;
  beforeAll(async () => {
    viewer = await admin<AdminWithToken>('POST', '/admins', {
      name: 'Vera Viewer',
      role: 'viewer',
    });
    const product = await admin<{ id: number }>('POST', '/products', { title: 'Viewed Plugin' });
    const plan = await admin<{ id: number }>('POST', '/plans', {
      name: 'Viewed plan',
      activation_type: 'domain',
      activation_limit: 2,
    });
    key = (
      await admin<{ license_key: string }>('POST', '/licenses', {
        product_id: product.id,
        plan_id: plan.id,
      })
    ).license_key;
  });

  async function readOnlyPages(page: Page, size: string) {
    await signIn(page, viewer.token, 'Licenses');
    await expect(page.locator('.topbar .who').innerText()).resolves.toBe('Vera Viewer · Viewer');
    const nav = page.getByRole('navigation', { name: 'Sections' });
    await expect(nav.getByRole('link', { name: 'Admins' }).count()).resolves.toBe(0);
    await expect(nav.getByRole('link', { name: 'Audit log' }).count()).resolves.toBe(1);
    await expect(page.getByText('Issue a license').isVisible()).resolves.toBe(false);
    await screenshot(page, `console-viewer-licenses${size}`);

    await page.getByLabel('Key prefix or identifier').fill(key);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('button', { name: `Open license ${key}` }).click();
    await page.locator('dl.facts').waitFor();
    for (const form of ['Limit, status and expiry', 'Renew', 'Add an activation']) {
      await expect(page.getByRole('heading', { name: form }).isVisible()).resolves.toBe(false);
    }
    await expect(page.getByRole('button', { name: 'Change limit' }).count()).resolves.toBe(0);
    await screenshot(page, `console-viewer-license${size}`);

    await nav.getByRole('link', { name: 'Products and plans' }).click();
    // On a phone the cell is a card's line, named with its column's label first.
    await page
      .getByRole('cell', { name: /(^| )Viewed Plugin$/ })
      .first()
      .waitFor();
    await expect(
      page
        .getByRole('button', { name: /^Edit / })
        .first()
        .isVisible(),
    ).resolves.toBe(false);
    await expect(
      page.getByRole('heading', { name: 'New product or bundle' }).isVisible(),
    ).resolves.toBe(false);
    await expect(page.getByRole('heading', { name: 'New plan' }).isVisible()).resolves.toBe(false);
    await screenshot(page, `console-viewer-catalog${size}`);

    await nav.getByRole('link', { name: 'Jobs and health' }).click();
    await page.locator('tr[data-task]').first().waitFor();
    await expect(
      page
        .getByRole('button', { name: /Run .* now/ })
        .first()
        .isVisible(),
    ).resolves.toBe(false);
  }

  test('sees every page read-only: no form or button that changes anything, no Admins page', async () => {
    const session = await openConsole(browser, system, { viewport: WIDE });
    try {
      await readOnlyPages(session.page, '');
      expectClean(session);
    } finally {
      await session.page.close();
    }
  });

  test('on a phone-sized screen too', async () => {
    const session = await openConsole(browser, system, { viewport: PHONE });
    try {
      await readOnlyPages(session.page, '-phone');
      await expect(pageWidth(session.page)).resolves.toBeLessThanOrEqual(PHONE.width);
      expectClean(session);
    } finally {
      await session.page.close();
    }
  });
});
