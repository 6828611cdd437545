import type { Browser, Locator, Page } from 'playwright-core';
import {
  downloadedText,
  expectClean,
  launchBrowser,
  openConsole,
  pageWidth,
  signIn,
  type Session,
} from '../support/browser.js';
import { csvRecords } from '../support/csv.js';
import {
  adminCall,
  screenshot,
  startLikeNpmStart,
  type StartedSystem,
} from '../support/started-system.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/**
 * The admin console's lists in a real browser, on the system as `npm start` starts it: the
 * licenses ordered by a column's heading, a page size, licenses selected (from the keyboard too)
 * and changed in bulk, exports of a search and of a selection; a license's customer and metadata;
 * the download log within dates, ordered and exported. Each page is seen 1280 and 390 pixels wide
 * (screenshots in test-output/screenshots), and checked for Content-Security-Policy violations,
 * console errors and dialogs.
 */

const WIDE = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const LICENSES = 30;

let system: StartedSystem;
let browser: Browser;
let product: { id: number; title: string };
let plan: { id: number };
/** The licenses of the product, by the order they were issued in. */
const keys: string[] = [];

const admin = <T>(method: string, path: string, body?: object) =>
  adminCall<T>(system, method, path, body);

/** A fresh tab on the console, signed in, at the licenses. */
async function signedIn(viewport = WIDE): Promise<Session> {
  const session = await openConsole(browser, system, { viewport });
  await signIn(session.page, system.adminToken, 'Licenses');
  return session;
}

/** Polls `check` (run in the page) until it holds: the page's CSP forbids waitForFunction's eval. */
async function until(page: Page, check: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await page.evaluate(check))) {
    if (Date.now() > deadline) throw new Error(`never held: ${check}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The licenses of the product only, on the licenses page. */
async function showProduct(page: Page): Promise<void> {
  await page
    .locator('form[role="search"]')
    .getByLabel('Product')
    .selectOption({ label: product.title });
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.getByText(`of ${LICENSES} licenses`).waitFor();
}

/** The license keys of the table, in its order. */
async function shownKeys(page: Page): Promise<string[]> {
  const cells = page.locator('main tbody tr td:nth-child(2) button');
  return cells.allInnerTexts();
}

/** The heading cell of a column, by the name it shows. */
const heading = (page: Page, name: string): Locator =>
  page.locator('main thead th', { hasText: name });

/** Waits until the first row is `key` (the table has loaded its new order). */
const firstRowIs = (page: Page, key: string) =>
  until(
    page,
    `document.querySelector('main tbody tr td:nth-child(2) button')?.textContent === ${JSON.stringify(key)}`,
  );

/** A download the page starts with `action`, read whole. */
async function downloaded(page: Page, action: () => Promise<void>) {
  const [download] = await Promise.all([page.waitForEvent('download'), action()]);
  return { name: download.suggestedFilename(), text: await downloadedText(download) };
}

beforeAll(async () => {
  [system, browser] = await Promise.all([
    startLikeNpmStart({ SCHEDULED_TASKS: 'off' }),
    launchBrowser(),
  ]);
  product = await admin('POST', '/products', { title: 'Lists Plugin' });
  plan = await admin('POST', '/plans', {
    name: 'Lists plan',
    activation_type: 'domain',
    activation_limit: 2,
  });
  for (let i = 0; i < LICENSES; i++) {
    const license = await admin<{ license_key: string }>('POST', '/licenses', {
      product_id: product.id,
      plan_id: plan.id,
      license_key: `list-${String(i).padStart(2, '0')}`,
      // Expiries out of the issue order: 2031-01-15, then days apart; every fifth never.
      expires_at:
        i % 5 === 4 ? null : new Date(Date.UTC(2031, 0, 15 + ((i * 7) % 30))).toISOString(),
      ...(i % 3 === 0 ? { customer: { email: `buyer${i}@example.com`, name: `Buyer ${i}` } } : {}),
    });
    keys.push(license.license_key);
  }
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

describe('the licenses list', () => {
  test('a heading orders the list, pressed again the other way; the page size shows more rows', async () => {
    const session = await signedIn();
    const { page } = session;
    try {
      await showProduct(page);
      // Newest first: the last issued at the top, 25 rows a page.
      expect(await shownKeys(page)).toEqual([...keys].reverse().slice(0, 25));
      await expect(heading(page, 'Issued').getAttribute('aria-sort')).resolves.toBe('descending');

      await page.getByRole('button', { name: 'Sort by license key' }).click();
      await firstRowIs(page, 'list-00');
      await expect(heading(page, 'License key').getAttribute('aria-sort')).resolves.toBe(
        'ascending',
      );
      await expect(heading(page, 'Issued').getAttribute('aria-sort')).resolves.toBe('none');
      await page.getByRole('button', { name: /^License key, sorted ascending/ }).click();
      await firstRowIs(page, 'list-29');

      // Expiry: a first press, newest first; the licenses that never expire come last.
      await page.getByRole('button', { name: 'Sort by expires' }).click();
      await until(
        page,
        `document.querySelector('th[aria-sort="descending"]')?.textContent.startsWith('Expires')`,
      );
      await page.getByLabel('Rows per page').selectOption('50');
      await page.getByText(`1–${LICENSES} of ${LICENSES} licenses`).waitFor();
      const byExpiry = await shownKeys(page);
      expect(byExpiry).toHaveLength(LICENSES);
      const never = keys.filter((_, i) => i % 5 === 4);
      expect([...byExpiry.slice(-never.length)].sort()).toEqual(never);
      await screenshot(page, 'console-lists-licenses-sorted');

      // From the keyboard: the heading's button is reached and pressed like any other.
      await page.getByRole('button', { name: /^Expires, sorted descending/ }).focus();
      await page.keyboard.press('Enter');
      await until(
        page,
        `document.querySelector('th[aria-sort="ascending"]')?.textContent.startsWith('Expires')`,
      );
      await firstRowIs(page, never[0]!);
      expect((await shownKeys(page)).slice(0, never.length)).toEqual(never);
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('licenses are selected (the whole page, or one by one from the keyboard) and changed in bulk; a refused one is named with its reason', async () => {
    const session = await signedIn();
    const { page } = session;
    try {
      await showProduct(page);
      await page.getByRole('button', { name: 'Sort by license key' }).click();
      await firstRowIs(page, 'list-00');

      const all = page.getByRole('checkbox', { name: 'Select every license on this page' });
      await all.check();
      await page.getByText('25 licenses selected').waitFor();
      await all.uncheck();
      await expect(
        page.getByRole('region', { name: 'Change the selected licenses' }).count(),
      ).resolves.toBe(0);

      // list-03 (a customer) and list-04 (never expires), by keyboard.
      for (const key of ['list-03', 'list-04']) {
        await page.getByRole('checkbox', { name: `Select license ${key}` }).focus();
        await page.keyboard.press('Space');
      }
      const bar = page.getByRole('region', { name: 'Change the selected licenses' });
      await bar.getByText('2 licenses selected').waitFor();
      await until(
        page,
        `document.querySelector('thead input[type=checkbox]').indeterminate === true`,
      );

      await bar.getByLabel('New status').selectOption({ label: 'Suspended' });
      await bar.getByRole('button', { name: 'Change status' }).click();
      await bar.getByText('2 licenses changed.').waitFor();
      const row = (key: string) => page.locator('main tbody tr', { hasText: key });
      await row('list-03').getByText('Suspended').waitFor();
      await row('list-04').getByText('Suspended').waitFor();

      await bar.getByLabel('Extend by (days)').fill('10');
      await bar.getByRole('button', { name: 'Extend expiry' }).click();
      await bar.getByText('1 license changed; 1 refused:').waitFor();
      const refusal = await bar.locator('.refused-keys li').innerText();
      expect(refusal).toMatch(/^list-04: .*never expires.*\(INVALID_REQUEST\)$/);
      const detail = await admin<{ expires_at: string; status: string }>(
        'GET',
        '/licenses/list-03',
      );
      expect(detail).toMatchObject({ expires_at: '2031-02-15T00:00:00.000Z', status: 'suspended' });
      await screenshot(page, 'console-lists-bulk-change');
      await bar.getByRole('button', { name: 'Clear selection' }).click();
      await expect(bar.count()).resolves.toBe(0);
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('Export CSV saves every license of the search in its order; Export selected, the selected ones', async () => {
    const session = await signedIn();
    const { page } = session;
    try {
      await showProduct(page);
      await page.getByRole('button', { name: 'Sort by license key' }).click();
      await firstRowIs(page, 'list-00');
      const whole = await downloaded(page, () =>
        page.getByRole('button', { name: 'Export CSV' }).click(),
      );
      expect(whole.name).toMatch(/^licenses-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.csv$/);
      const records = csvRecords(whole.text);
      // Every license of the search, not only the page shown.
      expect(records.map((record) => record.license_key)).toEqual(keys);
      expect(records[3]).toMatchObject({
        customer_email: 'buyer3@example.com',
        customer_name: 'Buyer 3',
        product: 'Lists Plugin',
        plan: 'Lists plan',
      });
      await page.getByText(`${whole.name} is ready`).waitFor();

      await page.getByRole('checkbox', { name: 'Select license list-06' }).check();
      await page.getByRole('checkbox', { name: 'Select license list-01' }).check();
      const selection = await downloaded(page, () =>
        page.getByRole('button', { name: 'Export selected' }).click(),
      );
      expect(selection.name).toMatch(/^licenses-selected-.+\.csv$/);
      expect(csvRecords(selection.text).map((record) => record.license_key)).toEqual([
        'list-01',
        'list-06',
      ]);
      expect(selection.text.split('\r\n')[0]).toBe(whole.text.split('\r\n')[0]);
      await screenshot(page, 'console-lists-exported');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test("a license's customer and metadata are set on its page, and the search finds it by either", async () => {
    const session = await signedIn();
    const { page } = session;
    try {
      await page.getByLabel('Key prefix or identifier').fill('list-07');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByRole('button', { name: 'Open license list-07' }).click();
      await page.getByRole('heading', { name: 'License', level: 1 }).waitFor();
      await page.locator('dl.facts').waitFor();
      const panel = page.locator('section', {
        has: page.getByRole('heading', { name: 'Customer and metadata' }),
      });
      await panel.getByLabel('Customer e-mail').fill('  Maria@Example.ORG ');
      await panel.getByLabel('Customer name').fill('María <b>Pérez</b>');
      await panel.getByRole('button', { name: 'Add an entry' }).click();
      await panel.getByLabel('Key').fill('order_id');
      await panel.getByLabel('Value').fill('WC-4711');
      await panel.getByRole('button', { name: 'Save customer and metadata' }).click();
      await panel.getByText('The customer and metadata are saved.').waitFor();
      const facts = page.locator('dl.facts');
      await facts.getByText('maria@example.org').waitFor();
      await facts.getByText('(María <b>Pérez</b>)').waitFor();
      await facts.getByText('WC-4711').waitFor();
      await screenshot(page, 'console-license-customer');

      await page.getByRole('button', { name: 'Back to licenses' }).click();
      for (const q of ['MARIA@example.org', 'WC-4711']) {
        await page.getByLabel('Key prefix or identifier').fill(q);
        await page.getByRole('button', { name: 'Search', exact: true }).click();
        await page.getByText('1–1 of 1 licenses').waitFor();
        expect(await shownKeys(page)).toEqual(['list-07']);
      }
      expectClean(session);
    } finally {
      await page.close();
    }
  });
});

describe('the download log', () => {
  test('dates keep the entries of those days; a heading orders them; Export CSV saves them in that order', async () => {
    for (const key of ['LOG-B', 'LOG-C', 'LOG-A']) {
      const refused = await fetch(
        `${system.gatewayUrl}${API_BASE}/downloads/${product.id}?dlid=${key}`,
        {
          headers: { Accept: 'application/json' },
        },
      );
      expect(refused.status).toBe(403);
    }
    const session = await signedIn();
    const { page } = session;
    try {
      await page.getByRole('link', { name: 'Download log' }).click();
      await page.getByRole('heading', { name: 'Download log', level: 1 }).waitFor();
      await page.getByLabel('Product').selectOption({ label: product.title });
      await page.getByText('1–3 of 3 downloads').waitFor();
      const today = (await page.evaluate(
        `(() => { const d = new Date(); return [d.getFullYear(), String(d.getMonth() + 1).padStart(2, '0'), String(d.getDate()).padStart(2, '0')].join('-'); })()`,
      )) as string;
      await page.getByLabel('From', { exact: true }).fill(today);
      await page.getByLabel('To', { exact: true }).fill(today);
      await page.getByText('1–3 of 3 downloads').waitFor();
      const tomorrow = new Date(Date.parse(`${today}T12:00:00Z`) + 86_400_000)
        .toISOString()
        .slice(0, 10);
      await page.getByLabel('From', { exact: true }).fill(tomorrow);
      await page.getByLabel('To', { exact: true }).fill(tomorrow);
      await page.getByText('No download matches these filters.').waitFor();
      await page.getByLabel('From', { exact: true }).fill(today);
      await page.getByLabel('To', { exact: true }).fill(today);
      await page.getByText('1–3 of 3 downloads').waitFor();

      await page.getByRole('button', { name: 'Sort by license key' }).click();
      // The heading says its order at once; the rows, when the list in that order arrives.
      await until(
        page,
        `document.querySelector('th[aria-sort="ascending"]')?.textContent.startsWith('License key')`,
      );
      await until(
        page,
        `[...document.querySelectorAll('main tbody tr td:nth-child(5)')].map((cell) => cell.innerText).join() === 'LOG-A,LOG-B,LOG-C'`,
      );
      await expect(heading(page, 'When').getAttribute('aria-sort')).resolves.toBe('none');

      const file = await downloaded(page, () =>
        page.getByRole('button', { name: 'Export CSV' }).click(),
      );
      expect(file.name).toMatch(/^download-log-.+\.csv$/);
      expect(
        csvRecords(file.text).map((record) => [record.license_key, record.product, record.reason]),
      ).toEqual([
        ['LOG-A', 'Lists Plugin', 'LICENSE_INVALID'],
        ['LOG-B', 'Lists Plugin', 'LICENSE_INVALID'],
        ['LOG-C', 'Lists Plugin', 'LICENSE_INVALID'],
      ]);
      await screenshot(page, 'console-lists-download-log');
      expectClean(session);
    } finally {
      await page.close();
    }
  });
});

describe('390 pixels wide', () => {
  test('the licenses list with a selection, and the download log, fit the screen: tables scroll in their box, the page does not', async () => {
    const session = await signedIn(PHONE);
    const { page } = session;
    try {
      await showProduct(page);
      await page.getByRole('checkbox', { name: 'Select license list-29' }).check();
      await page.getByText('1 license selected').waitFor();
      await expect(pageWidth(page)).resolves.toBeLessThanOrEqual(PHONE.width);
      // Each card names its own box, not the head's box that selects the whole page.
      const cardLabels = await page
        .locator('main tbody tr')
        .first()
        .locator('td')
        .evaluateAll((cells) => cells.map((cell) => cell.getAttribute('data-label')));
      expect(cardLabels[0]).toBe('Select');
      await screenshot(page, 'console-lists-phone-licenses');
      await page.getByRole('link', { name: 'Download log' }).click();
      await page.getByRole('heading', { name: 'Download log', level: 1 }).waitFor();
      await page.locator('main tbody tr, main p.empty').first().waitFor();
      await expect(pageWidth(page)).resolves.toBeLessThanOrEqual(PHONE.width);
      await screenshot(page, 'console-lists-phone-download-log');
      expectClean(session);
    } finally {
      await page.close();
    }
  });
});
