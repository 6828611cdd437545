import { createHmac } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import type { StoreEventRecord } from '../../libs/contracts/stores/received-store-events.js';
import type { StoreConnectionView } from '../../libs/contracts/stores/store-connection-views.js';
import {
  expectClean,
  launchBrowser,
  openConsole,
  signIn,
  type Session,
} from '../support/browser.js';
import { eventually } from '../support/eventually.js';
import { screenshot } from '../support/started-system.js';
import { storeFixture } from '../support/store-fixtures.js';
import { ADMIN_TOKEN, adminOf, bootSystem, type TestSystem } from '../support/system.js';

/**
 * The admin console's Stores page in a real browser (docs/stores.md, "Console"), on the whole
 * system: a connection made from the keyboard, its events URL shown with a Copy button and the
 * pasted secret never shown back; a mapping made from the product and plan lists; a delivered
 * event's outcome, and Apply again. A store's delivery is handed to the stores service as the
 * gateway hands it (`stores.receiveEvent`). Each test checks its page for Content-Security-Policy
 * violations, console errors and dialogs.
 */

const PUBLIC_URL = 'https://licensing.example.com';
const SECRET = 'lemon-signing-secret-from-the-store';
const MARKUP = '<img src=x onerror=alert(1)>';

let system: TestSystem;
let browser: Browser;
let product: { id: number; title: string };
let plan: { id: number; name: string };

const { post } = adminOf(() => system);

beforeAll(async () => {
  [system, browser] = await Promise.all([bootSystem({ PUBLIC_URL }), launchBrowser()]);
  ({ product, plan } = await system.license());
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

/** A fresh tab on the console that may use the clipboard, signed in, on the Stores page. */
async function onStores(): Promise<Session> {
  const session = await openConsole(browser, system.running, {
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  await signIn(session.page, ADMIN_TOKEN, 'Stores');
  return session;
}

/** Polled from here: the page's CSP forbids the eval that waitForFunction's own polling needs. */
async function focusOn(page: Page, condition: string): Promise<void> {
  const check = `(() => { const el = document.activeElement; return !!el && (${condition}); })()`;
  await eventually(`focus on ${condition}`, async () => (await page.evaluate(check)) === true);
}

async function connect(
  name: string,
  provider: StoreConnectionView['provider'] = 'lemonsqueezy',
): Promise<StoreConnectionView> {
  const res = await post('/store-connections', {
    name,
    provider,
    mode: 'live',
    signing_secret: SECRET,
  });
  expect(res.status).toBe(201);
  return res.body.data as StoreConnectionView;
}

/** Lemon Squeezy's order of variant 455, signed with the connection's secret. */
async function deliverOrder(connectionId: number): Promise<void> {
  const body = storeFixture('lemonsqueezy', 'order_created');
  await system.transport.call('stores.receiveEvent', {
    connection_id: connectionId,
    body: body.toString('base64'),
    headers: {
      'x-signature': createHmac('sha256', SECRET).update(body).digest('hex'),
      'x-event-name': 'order_created',
    },
  });
}

describe('the Stores page', () => {
  test('a connection is made from the keyboard; its events URL is shown with a Copy button, the secret never', async () => {
    const session = await onStores();
    const { page } = session;
    try {
      await page.getByText('No store connected yet.').waitFor();
      const form = page.getByRole('form', { name: 'New store connection' });
      await form.getByLabel('Name').focus();
      await page.keyboard.type(MARKUP);
      await page.keyboard.press('Tab');
      // Stripe, then Paddle Billing, then Lemon Squeezy.
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowDown');
      await expect(form.getByLabel('Store').inputValue()).resolves.toBe('lemonsqueezy');
      await form.getByLabel('Signing secret').focus();
      await page.keyboard.type(SECRET);
      await page.keyboard.press('Enter');

      const notice = page.getByRole('region', { name: `Events URL of ${MARKUP}` });
      await notice.waitFor();
      // Focus moves to it, so a keyboard or screen reader meets it first.
      await focusOn(page, `el.id === 'connected-heading'`);
      const url = await notice.locator('[data-copy]').innerText();
      expect(url).toMatch(
        new RegExp(`^${PUBLIC_URL}/api/index\\.php/v1/licensing/stores/\\d+/events$`),
      );
      await notice.getByRole('button', { name: /^Copy/ }).press('Enter');
      await notice.getByText('Copied to the clipboard.').waitFor();
      await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(url);
      // Listed, with the same URL; the name is text, not markup.
      await page.locator('tr[data-connection]', { hasText: url }).waitFor();
      await screenshot(page, 'console-store-connected');
      expect(await page.evaluate('document.body.innerText')).not.toContain(SECRET);
      expect(await page.locator('img').count()).toBe(0);
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('a mapping is added from the product and plan lists; a delivered event shows its outcome and is applied again', async () => {
    const connection = await connect(`Lemon shop ${Date.now()}`);
    await deliverOrder(connection.id);
    const session = await onStores();
    const { page } = session;
    try {
      await page
        .getByRole('button', { name: `Open store connection ${connection.name}` })
        .press('Enter');
      await page.getByRole('heading', { name: connection.name, level: 2 }).waitFor();
      const mappingForm = page.getByRole('form', { name: 'New mapping' });
      await mappingForm.getByLabel('Variant id').fill('455');
      await mappingForm
        .getByLabel('Product', { exact: true })
        .selectOption({ label: product.title });
      await mappingForm
        .getByLabel('Plan', { exact: true })
        .selectOption({ value: String(plan.id) });
      await mappingForm.getByRole('button', { name: 'Add mapping' }).press('Enter');
      const row = page.locator('tr[data-mapping]', { hasText: '455' });
      await row.waitFor();
      await expect(row.innerText()).resolves.toContain(product.title);
      await expect(row.innerText()).resolves.toContain(plan.name);

      // Received before the mapping was made: unmapped until applied again.
      const events = page.getByRole('region', { name: 'Received events' });
      await events.getByLabel('Connection').selectOption({ label: connection.name });
      await events.getByLabel('Outcome').selectOption({ label: 'Unmapped' });
      const unmapped = events.locator('tr[data-store-event]', { hasText: 'order_created' });
      await eventually('the event listed as unmapped', async () => {
        await events.getByRole('button', { name: 'Refresh' }).click();
        return (await unmapped.count()) === 1;
      });
      await expect(unmapped.innerText()).resolves.toContain('Unmapped');
      await screenshot(page, 'console-store-events');
      const id = Number(await unmapped.getAttribute('data-store-event'));
      await unmapped.getByRole('button', { name: /^Apply again/ }).press('Enter');
      await events.getByText(/is pending again/).waitFor();

      // Applied again: no longer unmapped, as the stores service says.
      const res = await system
        .admin()
        .get(`/admin/v1/store-events/${id}`)
        .set('Authorization', `Bearer ${ADMIN_TOKEN}`);
      const event = res.body.data as StoreEventRecord;
      expect(event.outcome).not.toBe('unmapped');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('a Paddle connection without an API key says its buyers get no e-mail until one is set; once set, no more', async () => {
    const connection = await connect(`Paddle shop ${Date.now()}`, 'paddle');
    const session = await onStores();
    const { page } = session;
    try {
      await page
        .getByRole('button', { name: `Open store connection ${connection.name}` })
        .press('Enter');
      const panel = page.getByRole('region', { name: connection.name });
      const missing = panel.getByText('Paddle buyers get no e-mail until an API key is set');
      await missing.waitFor();
      await screenshot(page, 'console-store-paddle-without-key');

      await panel.getByRole('button', { name: 'Edit' }).press('Enter');
      const form = panel.getByRole('form', { name: 'Edit store connection' });
      await form
        .getByLabel('API key (optional)')
        .fill('pdl_live_apikey_01jdqzb7c9e1g3j5l7n9q1s3u5');
      await form.getByRole('button', { name: 'Save' }).press('Enter');
      await panel.getByText('Saved the connection.').waitFor();
      await missing.waitFor({ state: 'detached' });
      expect(await panel.innerText()).not.toContain('no e-mail');
      expectClean(session);
    } finally {
      await page.close();
    }
  });
});
