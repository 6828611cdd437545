import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import {
  expectClean,
  launchBrowser,
  openConsole,
  openSection,
  signIn,
  type Session,
} from '../support/browser.js';
import { eventually } from '../support/eventually.js';
import {
  adminCall,
  screenshot,
  startLikeNpmStart,
  type StartedSystem,
} from '../support/started-system.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';

/**
 * The admin console's Webhooks page in a real browser, on the system as `npm start` starts it,
 * sending to a receiver on loopback (WEBHOOK_ALLOW_PRIVATE_URLS) and retrying a failed delivery
 * once, a second later (WEBHOOK_RETRY_SCHEDULE). The secret is shown once and only kept by the
 * page that showed it; deliveries show their attempts and are retried with their button; every
 * action works from the keyboard. Each test checks its page for Content-Security-Policy
 * violations, console errors and dialogs.
 */

const MARKUP = '<img src=x onerror=alert(1)>';
const SECRET = /whsec_[A-Za-z0-9+/]{43}=/;

let system: StartedSystem;
let browser: Browser;
let receiver: WebhookReceiver;

const admin = <T>(method: string, path: string, body?: object) =>
  adminCall<T>(system, method, path, body);

let seq = 0;
/** A new URL of the receiver (which answers every path), so each endpoint's is its own. */
const hookUrl = (on = receiver) => `${on.url}/${++seq}`;

/** A fresh tab on the console that may use the clipboard, signed in. */
async function signedIn(): Promise<Session> {
  const session = await openConsole(browser, system, {
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  await signIn(session.page, system.adminToken);
  return session;
}

/**
 * Waits until keyboard focus is on an element that `condition` (run in the page) accepts. Polled
 * from here: the page's CSP forbids the eval that waitForFunction's own polling of a string
 * needs.
 */
async function focusOn(page: Page, condition: string): Promise<void> {
  const check = `(() => { const el = document.activeElement; return !!el && (${condition}); })()`;
  const until = Date.now() + 10_000;
  while (!(await page.evaluate(check))) {
    if (Date.now() > until) throw new Error(`focus never met: ${condition}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const focusedText = (page: Page) =>
  page.evaluate('document.activeElement && document.activeElement.textContent');

/** Everything the page keeps or shows: its text, its storage, its history entry. */
const pageHoldings = (page: Page) =>
  page.evaluate(
    `JSON.stringify([document.body.innerText, { ...sessionStorage }, { ...localStorage }, history.state, location.href])`,
  ) as Promise<string>;

beforeAll(async () => {
  [system, browser, receiver] = await Promise.all([
    startLikeNpmStart({
      SCHEDULED_TASKS: 'off',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_RETRY_SCHEDULE: '1s',
    }),
    launchBrowser(),
    WebhookReceiver.start(),
  ]);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
  await receiver?.stop();
});

describe('the Webhooks page', () => {
  test('an endpoint is added with some events; its secret is shown once with a Copy button, signs its deliveries, and is not shown again after a reload or another page', async () => {
    const session = await signedIn();
    const { page } = session;
    const url = hookUrl();
    try {
      await openSection(page, 'Webhooks');
      await page.getByText('No webhook endpoint yet.').waitFor();
      const form = page.getByRole('form', { name: 'New webhook endpoint' });
      await form.getByLabel('URL').fill(url);
      await form.getByRole('checkbox', { name: /^license\.created\b/ }).check();
      await form.getByRole('checkbox', { name: /^activation\.created\b/ }).check();
      await form.getByLabel('Description').fill(MARKUP);
      await form.getByRole('button', { name: 'Add endpoint' }).click();

      const notice = page.getByRole('region', { name: `Signing secret of ${url}` });
      await notice.waitFor();
      // Focus moves to the secret, so a keyboard or screen reader meets it first.
      await focusOn(page, `el.id === 'secret-heading'`);
      const secret = await notice.locator('[data-secret]').innerText();
      expect(secret).toMatch(SECRET);
      await expect(notice.innerText()).resolves.toMatch(
        /This secret will not be shown again: copy it now\./,
      );
      await notice.getByRole('button', { name: 'Copy' }).click();
      await notice.getByText('Copied to the clipboard.').waitFor();
      await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(secret);
      await screenshot(page, 'console-webhook-secret');

      // Listed with its events and state; the description is text, not markup.
      const row = page.locator('tbody tr', { hasText: url });
      const text = await row.innerText();
      expect(text).toMatch(/license\.created\s+activation\.created/);
      expect(text).toMatch(/enabled/);
      await expect(row.locator('td').nth(3).innerText()).resolves.toBe(MARKUP);
      await expect(page.locator('img').count()).resolves.toBe(0);

      // The secret shown is the one that signs: a test event verifies with it.
      const { webhooks } = await admin<{ webhooks: Array<{ id: number; url: string }> }>(
        'GET',
        '/webhooks',
      );
      const endpoint = webhooks.find((w) => w.url === url)!;
      const sent = await admin<{ id: string }>('POST', `/webhooks/${endpoint.id}/test`);
      await receiver.waitFor((received) => received.some((webhook) => webhook.id === sent.id));
      const webhook = receiver.received.find((received) => received.id === sent.id)!;
      expect(
        new Webhook(secret).verify(webhook.body, {
          'webhook-id': webhook.id,
          'webhook-timestamp': webhook.timestamp,
          'webhook-signature': webhook.signature,
        }),
      ).toMatchObject({ type: 'webhook.test' });

      // Gone after a reload, and after going elsewhere and back; never stored.
      await expect(pageHoldings(page)).resolves.toContain(secret);
      await page.reload();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await row.waitFor();
      await expect(pageHoldings(page)).resolves.not.toContain(secret);
      await expect(page.locator('[data-secret]').count()).resolves.toBe(0);
      await page.getByRole('link', { name: 'Licenses' }).click();
      await page.getByRole('heading', { name: 'Licenses', level: 1 }).waitFor();
      await page.goBack();
      await row.waitFor();
      await expect(pageHoldings(page)).resolves.not.toContain(secret);
      await expect(page.locator('[data-secret]').count()).resolves.toBe(0);
      expectClean(session);
    } finally {
      await session.page.close();
    }
  });

  test('a delivery that failed is shown with its attempts, then retried with its Retry button and delivered', async () => {
    // A receiver of its own, unavailable until the test says otherwise.
    const flaky = await WebhookReceiver.start();
    let available = false;
    flaky.answer = () => (available ? 204 : 503);
    const url = hookUrl(flaky);
    const endpoint = await admin<{ id: number }>('POST', '/webhooks', {
      url,
      events: ['*'],
      description: 'Flaky receiver',
    });
    const session = await signedIn();
    const { page } = session;
    try {
      await openSection(page, 'Webhooks');
      await page.getByRole('button', { name: `Open webhook ${url}` }).click();
      await page.getByRole('heading', { name: 'Webhook endpoint', level: 1 }).waitFor();
      await page.getByText('Nothing has been sent to this endpoint yet.').waitFor();
      await page.getByRole('button', { name: 'Send test event' }).click();
      const queued = await page.getByText(/^Queued a test event as msg_/).innerText();
      const id = /msg_[0-9A-Za-z]+/.exec(queued)![0];

      // Tried at once and a second later, both refused: the page follows without a click.
      const row = page.locator(`tr[data-delivery="${id}"]`);
      await row.getByText('Failed', { exact: true }).waitFor();
      const failed = await row.innerText();
      expect(failed).toMatch(/webhook\.test/);
      expect(failed).toContain(id);
      expect(failed.match(/HTTP 503/g)).toHaveLength(2);
      expect(failed).toMatch(/none: every attempt failed/);
      await page
        .locator('dl.facts')
        .getByText(/failing since/)
        .waitFor();
      await screenshot(page, 'console-webhook-delivery-failed');

      available = true;
      // By keyboard: Enter on the row's Retry; focus stays on it while the attempt is made.
      await row.getByRole('button', { name: `Retry ${id}` }).focus();
      await page.keyboard.press('Enter');
      await page
        .getByText(`Trying ${id} again now; its attempt is listed below once made.`)
        .waitFor();
      await row.getByText('Delivered', { exact: true }).waitFor();
      await focusOn(page, `el.getAttribute('aria-label') === 'Retry ${id}'`);
      const delivered = await row.innerText();
      expect(delivered.match(/HTTP 503/g)).toHaveLength(2);
      expect(delivered.match(/HTTP 204/g)).toHaveLength(1);
      // No longer failing (the endpoint is read again, as the sender records it after the attempt
      // the row shows: read once it has).
      await eventually(
        'the endpoint is no longer failing',
        async () =>
          (await admin<{ failing_since: string | null }>('GET', `/webhooks/${endpoint.id}`))
            .failing_since === null,
      );
      await page.getByRole('button', { name: 'Refresh', exact: true }).first().click();
      await page
        .locator('dl.facts')
        .getByText(/failing since/)
        .waitFor({ state: 'detached' });
      expect(flaky.received.map((webhook) => webhook.id)).toEqual([id, id, id]);
      await screenshot(page, 'console-webhook-delivery-retried');

      // The filter by status.
      await page.getByLabel('Status').selectOption({ label: 'Failed' });
      await page.getByText('No failed delivery.').waitFor();
      await page.getByLabel('Status').selectOption({ label: 'Delivered' });
      await row.waitFor();
      await page.getByText('1–1 of 1 deliveries (page 1 of 1)').waitFor();
      expectClean(session);
    } finally {
      await session.page.close();
      await flaky.stop();
    }
  });

  test('by keyboard: an endpoint for all events is added, edited, disabled and enabled, its secret rotated, and it is deleted after a confirmation', async () => {
    const url = hookUrl();
    const moved = hookUrl();
    const session = await signedIn();
    const { page } = session;
    try {
      await openSection(page, 'Webhooks');
      const form = page.getByRole('form', { name: 'New webhook endpoint' });
      await form.getByLabel('URL').focus();
      await page.keyboard.type(url);
      await page.keyboard.press('Tab');
      await focusOn(
        page,
        `el.closest('label') && el.closest('label').textContent === 'All events'`,
      );
      await page.keyboard.press('Space');
      // Every event is ticked and fixed; Tab passes over them to the description.
      const single = form.getByRole('checkbox', { name: /^license\.created\b/ });
      await expect(single.isChecked()).resolves.toBe(true);
      await expect(single.isDisabled()).resolves.toBe(true);
      await page.keyboard.press('Tab');
      await focusOn(page, "el.name === 'description'");
      await page.keyboard.type('Everything');
      await page.keyboard.press('Enter');
      await focusOn(page, `el.id === 'secret-heading'`);
      await page.keyboard.press('Tab');
      await expect(focusedText(page)).resolves.toBe('Copy');
      await page.keyboard.press('Tab');
      await expect(focusedText(page)).resolves.toBe('I have copied it');
      await page.keyboard.press('Enter');
      await expect(page.locator('[data-secret]').count()).resolves.toBe(0);
      const row = page.locator('tbody tr', { hasText: url });
      await expect(row.innerText()).resolves.toMatch(/All events/);

      await page.getByRole('button', { name: `Open webhook ${url}` }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Webhook endpoint', level: 1 }).waitFor();
      const facts = page.locator('dl.facts');

      // Edit: focus starts in the URL; Escape cancels; Enter saves.
      await page.getByRole('button', { name: 'Edit', exact: true }).focus();
      await page.keyboard.press('Enter');
      const edit = page.getByRole('form', { name: 'Edit webhook endpoint' });
      await edit.waitFor();
      await focusOn(page, "el.name === 'url'");
      await page.keyboard.press('Escape');
      await edit.waitFor({ state: 'detached' });
      await focusOn(page, "el.textContent === 'Edit'");
      await page.keyboard.press('Enter');
      await focusOn(page, "el.name === 'url'");
      await page.keyboard.press('Control+A');
      await page.keyboard.type(moved);
      await page.keyboard.press('Tab');
      await page.keyboard.press('Space');
      await page.keyboard.press('Tab');
      await focusOn(page, "el.value === 'license.created'");
      await page.keyboard.press('Space');
      // Back to the URL, where Enter sends the form.
      await page.keyboard.press('Shift+Tab');
      await page.keyboard.press('Shift+Tab');
      await focusOn(page, "el.name === 'url'");
      await page.keyboard.press('Enter');
      await page.getByText(`Saved ${moved}.`).waitFor();
      await focusOn(page, "el.textContent === 'Edit'");
      await expect(facts.innerText()).resolves.toMatch(/Events\s+license\.created\s+State/);
      await expect(facts.innerText()).resolves.toContain(moved);

      // Disable, then enable again.
      await page.getByRole('button', { name: 'Disable', exact: true }).focus();
      await page.keyboard.press('Enter');
      await facts.getByText('disabled by an admin').waitFor();
      await page.getByText(/its test events and retries wait until it is enabled again/).waitFor();
      await focusOn(page, "el.textContent === 'Enable'");
      await page.keyboard.press('Enter');
      await facts.getByText('enabled', { exact: true }).waitFor();

      // Rotate: a confirmation (Escape cancels), then the new secret, shown once.
      await page.getByRole('button', { name: 'Rotate secret' }).focus();
      await page.keyboard.press('Enter');
      const confirm = page.getByRole('dialog', { name: 'Replace the signing secret?' });
      await confirm.waitFor();
      await expect(focusedText(page)).resolves.toBe('Cancel');
      await page.keyboard.press('Escape');
      await confirm.waitFor({ state: 'hidden' });
      await page.getByRole('button', { name: 'Rotate secret' }).focus();
      await page.keyboard.press('Enter');
      await confirm.waitFor();
      await page.keyboard.press('Tab');
      await expect(focusedText(page)).resolves.toBe('Rotate secret');
      await page.keyboard.press('Enter');
      const notice = page.getByRole('region', { name: 'New signing secret' });
      await notice.waitFor();
      await focusOn(page, `el.id === 'secret-heading'`);
      await expect(notice.locator('[data-secret]').innerText()).resolves.toMatch(SECRET);
      await facts.locator('time').nth(1).waitFor();
      await screenshot(page, 'console-webhook-rotated');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Enter');
      await notice.waitFor({ state: 'detached' });

      // Delete: a confirmation that says it cannot be undone; Tab reaches it, Enter confirms.
      await page.getByRole('button', { name: 'Delete', exact: true }).focus();
      await page.keyboard.press('Enter');
      const removal = page.getByRole('dialog', { name: 'Delete this webhook endpoint?' });
      await removal.waitFor();
      await expect(removal.innerText()).resolves.toMatch(/This cannot be undone\./);
      await expect(removal.innerText()).resolves.toContain(moved);
      await expect(focusedText(page)).resolves.toBe('Cancel');
      await page.keyboard.press('Tab');
      await expect(focusedText(page)).resolves.toBe('Delete endpoint');
      await page.keyboard.press('Enter');
      await page.getByText(`Deleted the endpoint ${moved}; nothing more is sent to it.`).waitFor();
      const { webhooks } = await admin<{ webhooks: Array<{ url: string }> }>('GET', '/webhooks');
      expect(webhooks.map((w) => w.url)).not.toContain(moved);
      await page.getByRole('button', { name: 'Back to webhooks' }).focus();
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await expect(page.locator('tbody tr', { hasText: moved }).count()).resolves.toBe(0);
      expectClean(session);
    } finally {
      await session.page.close();
    }
  });
});
