import type { Browser, Page } from 'playwright-core';
import { expectClean, launchBrowser, openConsole, signIn } from '../support/browser.js';
import {
  adminCall,
  screenshot,
  startLikeNpmStart,
  type StartedSystem,
} from '../support/started-system.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/**
 * The admin console (the management service's page at `/`) in a real browser, on the system as
 * `npm start` starts it: every action goes through the management API with the admin token of
 * the tab, values from the API are shown as text, and neither the token nor a license key ever
 * reaches a URL. Each test checks its page for Content-Security-Policy violations, console
 * errors and `alert` dialogs.
 */

const TOKEN_ITEM = 'licensing-console.admin-token';
const MARKUP = '<img src=x onerror=alert(1)>';

let system: StartedSystem;
let browser: Browser;
let product: { id: number; title: string };
const plans = { single: 0, three: 0, devices: 0 };

const admin = <T>(method: string, path: string, body?: object) =>
  adminCall<T>(system, method, path, body);

/** A license of `product` on a plan; its key. */
async function issue(planId: number, productId = product.id, extra: object = {}) {
  const license = await admin<{ license_key: string }>('POST', '/licenses', {
    product_id: productId,
    plan_id: planId,
    expires_at: '2099-06-30T12:00:00Z',
    ...extra,
  });
  return license.license_key;
}

/** The public activate call, as client software makes it (form fields). */
async function activate(key: string, identifier: string, name?: string): Promise<Response> {
  return fetch(`${system.gatewayUrl}${API_BASE}/licenses/activate`, {
    method: 'POST',
    body: new URLSearchParams({ license_key: key, identifier, ...(name ? { name } : {}) }),
  });
}

async function activated(key: string, identifier: string, name?: string): Promise<void> {
  const response = await activate(key, identifier, name);
  if (!response.ok) throw new Error(`activate ${identifier}: ${await response.text()}`);
}

/** Activates `identifier`; when its lease ends, as the server says (null: no lease). */
async function activatedUntil(key: string, identifier: string): Promise<string | null> {
  const response = await activate(key, identifier);
  if (!response.ok) throw new Error(`activate ${identifier}: ${await response.text()}`);
  const answer = (await response.json()) as { data: { lease_expires_at: string | null } };
  return answer.data.lease_expires_at;
}

/**
 * Waits until a moment the server gave has passed, and a margin more: the browser reads the
 * same machine's clock, so by then the page sees it as past too.
 */
async function waitPast(iso: string, marginMs = 1_500): Promise<void> {
  const wait = Date.parse(iso) + marginMs - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** Waits until keyboard focus is on an element that `condition` (run in the page) accepts. */
async function focusOn(page: Page, condition: string): Promise<void> {
  await page.waitForFunction(
    `(() => { const el = document.activeElement; return !!el && (${condition}); })()`,
  );
}

/** Finds a license by its key in the console's search and opens it. */
async function openLicense(page: Page, key: string): Promise<void> {
  await page.getByLabel('Key prefix or identifier').fill(key);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.getByRole('button', { name: `Open license ${key}` }).click();
  await page.getByRole('heading', { name: 'License', level: 1 }).waitFor();
  await page.locator('dl.facts').waitFor();
}

/**
 * What of the page does not fit the screen: the page scrolling sideways, a table wider than its
 * box, a row or cell past its box's edge, a control of the main part outside the screen. Empty
 * when everything fits.
 */
function overflows(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const problems = [];
    const screen = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > screen) problems.push('the page scrolls sideways');
    document.querySelectorAll('main .table-wrap').forEach((wrap, n) => {
      const box = wrap.getBoundingClientRect();
      if (wrap.scrollWidth > wrap.clientWidth) {
        problems.push('table ' + n + ' is ' + wrap.scrollWidth + ' px in a ' + wrap.clientWidth + ' px box');
      }
      wrap.querySelectorAll('tbody tr, tbody td, tbody th').forEach((part) => {
        const r = part.getBoundingClientRect();
        if (r.right > box.right + 1 || r.left < box.left - 1) {
          problems.push('table ' + n + ': ' + part.tagName + ' "' + part.textContent.slice(0, 30) + '" leaves its box');
        }
      });
    });
    document.querySelectorAll('main button, main a, main select, main input, dialog button').forEach((control) => {
      const r = control.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) return;
      if (r.left < -1 || r.right > screen + 1) {
        problems.push('"' + (control.textContent || control.getAttribute('aria-label') || control.tagName).slice(0, 30) + '" is off the screen');
      }
    });
    return problems;
  })()`);
}

/** Cells of the cards (narrow screens) that are not named after their column. */
function unnamedCells(page: Page): Promise<string[]> {
  return page.evaluate(`(() => {
    const unnamed = [];
    document.querySelectorAll('main .table-wrap table').forEach((table) => {
      // A column's name: its text (a sort arrow is not), or its control's label (a checkbox).
      const nameOf = (cell) => {
        const text = cell.cloneNode(true);
        text.querySelectorAll('[aria-hidden="true"]').forEach((hidden) => hidden.remove());
        const control = cell.querySelector('input');
        return text.textContent.trim() || (control && control.getAttribute('aria-label')) || '';
      };
      const columns = [...table.tHead.rows[0].cells].map(nameOf);
      for (const row of table.tBodies[0].rows) {
        if (getComputedStyle(row).display !== 'block') unnamed.push('a row is not a card');
        [...row.cells].forEach((cell, i) => {
          const label = cell.getAttribute('data-label');
          const column = columns[i] === 'Actions' ? '' : columns[i];
          // A head that is a control (select the whole page) and a cell that is one of its own
          // (select this row): the card names the cell's control, not the head's.
          const own = cell.querySelector('input');
          const control = table.tHead.rows[0].cells[i].textContent.trim() === '' && own;
          if (control ? !label || !own.getAttribute('aria-label') : label !== column) {
            unnamed.push(cell.textContent.slice(0, 30) + ': ' + label + ' is not ' + column);
          }
        });
      }
    });
    return unnamed;
  })()`);
}

function alertText(page: Page): Promise<string> {
  return page.getByRole('alert').first().innerText();
}

beforeAll(async () => {
  // The lease-release task would remove a lapsed activation before the console could show it:
  // the scheduler runs each task once as it starts, then at its interval. Here it runs no task
  // by itself (the jobs page runs them on demand), so the record is seen as stored.
  [system, browser] = await Promise.all([
    startLikeNpmStart({ SCHEDULED_TASKS: 'off' }),
    launchBrowser(),
  ]);
  product = await admin('POST', '/products', { title: 'Console Plugin' });
  plans.single = (
    await admin<{ id: number }>('POST', '/plans', {
      name: 'Single site',
      activation_type: 'domain',
      activation_limit: 1,
    })
  ).id;
  plans.three = (
    await admin<{ id: number }>('POST', '/plans', {
      name: 'Three sites',
      activation_type: 'domain',
      activation_limit: 3,
    })
  ).id;
  plans.devices = (
    await admin<{ id: number }>('POST', '/plans', {
      name: 'Devices',
      activation_type: 'device',
      activation_limit: 5,
    })
  ).id;
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
});

describe('the admin console', () => {
  test('a wrong admin token is refused in words; the right one signs in and out, and is kept in sessionStorage, never in a URL', async () => {
    const session = await openConsole(browser, system);
    const { page } = session;
    const authorizations: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/admin/v1/')) {
        authorizations.push(request.headers().authorization ?? '');
      }
    });
    try {
      const response = await page.goto(`${system.managementUrl}/`);
      expect(response?.headers()['content-security-policy']).toMatch(/form-action 'none'/);
      await screenshot(page, 'console-sign-in');
      await page.getByLabel('Admin token').fill('not-the-admin-token');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(alertText(page)).resolves.toMatch(/admin token was not accepted/);
      await expect(page.evaluate(`sessionStorage.getItem('${TOKEN_ITEM}')`)).resolves.toBeNull();
      await screenshot(page, 'console-sign-in-refused');

      await signIn(page, system.adminToken, 'Licenses');
      await expect(page.evaluate(`sessionStorage.getItem('${TOKEN_ITEM}')`)).resolves.toBe(
        system.adminToken,
      );
      await page.getByRole('navigation', { name: 'Sections' }).waitFor();
      await screenshot(page, 'console-licenses');
      // The tab stays signed in across a reload, and only the header carries the token.
      await page.reload();
      await page.getByRole('heading', { name: 'Licenses', level: 1 }).waitFor();
      expect(authorizations.length).toBeGreaterThan(2);
      expect(
        authorizations.slice(1).every((value) => value === `Bearer ${system.adminToken}`),
      ).toBe(true);
      expect(authorizations[0]).toBe('Bearer not-the-admin-token');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('Admin token').waitFor();
      await expect(page.getByRole('status').first().innerText()).resolves.toMatch(/signed out/);
      await expect(page.evaluate(`sessionStorage.getItem('${TOKEN_ITEM}')`)).resolves.toBeNull();
      await screenshot(page, 'console-signed-out');

      for (const url of [...session.problems.requests, page.url()]) {
        expect(url).not.toContain(system.adminToken);
      }
      await expect(page.context().cookies()).resolves.toEqual([]);
      expectClean(session, [401]);
    } finally {
      await page.close();
    }
  });

  test('a license is found by an identifier spelled differently (https://www.Shop.example/cart finds shop.example), and opening it keeps the key out of the URL', async () => {
    const key = await issue(plans.single);
    await activated(key, 'shop.example', 'Shop');
    await activated(await issue(plans.single), 'other-shop.example');
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByLabel('Key prefix or identifier').fill('https://www.Shop.example/cart');
      await page.getByRole('button', { name: 'Search', exact: true }).click();
      await page.getByText('1–1 of 1 licenses').waitFor();
      const keys = await page.locator('tbody tr td:nth-child(2)').allInnerTexts();
      expect(keys).toEqual([key]);
      await screenshot(page, 'console-license-search');

      await page.getByRole('button', { name: `Open license ${key}` }).click();
      await page.getByRole('heading', { name: /^Activations/ }).waitFor();
      const facts = await page.locator('dl.facts').innerText();
      expect(facts).toContain(key);
      expect(facts).toMatch(/Console Plugin/);
      expect(facts).toMatch(/Last check IP/);
      expect(facts).toMatch(/Check count/);
      expect(facts).toMatch(/Lease\s+No lease: activations never lapse/);
      expect(facts).toMatch(/Exempt identifiers\s+None/);
      expect(page.url()).toBe(`${system.managementUrl}/#license`);
      await screenshot(page, 'console-license-detail');

      // Back returns to the search as it was; the address never named the key.
      await page.goBack();
      await page.getByRole('button', { name: `Open license ${key}` }).waitFor();
      expect(page.url()).toBe(`${system.managementUrl}/#licenses`);
      const history = await page.evaluate('JSON.stringify(history.state)');
      expect(history).not.toContain(key);
      await expect(page.title()).resolves.not.toContain(key);
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('an activation is added (normalised as the API does) and removed after a confirmation that says it cannot be undone', async () => {
    const key = await issue(plans.three);
    await activated(key, 'kept.example');
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, key);
      // No license file issued for it yet: said so in the activation's row.
      const kept = page.locator('tbody tr', { hasText: 'kept.example' });
      await expect(kept.innerText()).resolves.toMatch(/none issued/);
      await page.getByLabel('Identifier').fill('https://www.Added.example:8443/staging');
      await page.getByLabel('Name', { exact: true }).fill('Staging');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await page.getByText('Added added.example.').waitFor();
      const row = page.locator('tbody tr', { hasText: 'added.example' });
      await expect(row.innerText()).resolves.toMatch(/Staging/);
      await expect(row.innerText()).resolves.toMatch(/added in admin/);
      const afterAdd = await admin<{ activations: { identifier: string; ip: string }[] }>(
        'GET',
        `/licenses/${key}`,
      );
      expect(afterAdd.activations).toContainEqual(
        expect.objectContaining({ identifier: 'added.example', ip: '' }),
      );

      // A refusal of Add is said in words.
      await page.getByLabel('Identifier').fill('kept.example');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await expect(alertText(page)).resolves.toMatch(/already activated/);

      // Escape cancels the confirmation; nothing is removed.
      await page.getByRole('button', { name: 'Remove added.example' }).click();
      const dialog = page.getByRole('dialog', { name: 'Remove this activation?' });
      await dialog.waitFor();
      await expect(dialog.innerText()).resolves.toMatch(/This cannot be undone\./);
      await expect(dialog.innerText()).resolves.toMatch(/added\.example \(Staging\)/);
      await screenshot(page, 'console-remove-confirmation');
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      await expect(row.count()).resolves.toBe(1);

      // By keyboard: focus starts on Cancel; Tab reaches the removal, Enter confirms it.
      await page.getByRole('button', { name: 'Remove added.example' }).click();
      await dialog.waitFor();
      await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe('Cancel');
      await page.keyboard.press('Tab');
      await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe(
        'Remove activation',
      );
      await page.keyboard.press('Enter');
      await page.getByText('Removed added.example; its slot is free.').waitFor();
      await expect(row.count()).resolves.toBe(0);
      const afterRemove = await admin<{ activations: { identifier: string }[] }>(
        'GET',
        `/licenses/${key}`,
      );
      expect(afterRemove.activations.map((a) => a.identifier)).toEqual(['kept.example']);
      await screenshot(page, 'console-activation-removed');
      expectClean(session, [409]);
    } finally {
      await page.close();
    }
  });

  test('a leased license says when each activation lapses; a lapsed one is marked "lapsed, not counted", an exempt one "exempt (staging, not counted)"', async () => {
    const shortLease = await admin<{ id: number }>('POST', '/plans', {
      name: 'One-second lease',
      activation_type: 'domain',
      activation_limit: 1,
      lease_seconds: 1,
      exempt_identifiers: ['staging.*'],
      exempt_limit: 2,
    });
    const hourLease = await admin<{ id: number }>('POST', '/plans', {
      name: 'Hour lease',
      activation_type: 'domain',
      activation_limit: 2,
      lease_seconds: 3600,
    });
    const lapsing = await issue(shortLease.id);
    // A limit of 1: the staging site is let in beside the live one because it is exempt.
    const ends = [
      await activatedUntil(lapsing, 'live.example'),
      await activatedUntil(lapsing, 'staging.shop.example'),
    ];
    const kept = await issue(hourLease.id);
    const keptUntil = await activatedUntil(kept, 'leased.example');
    for (const end of ends) await waitPast(end!);
    // Nothing has used the license since: the lapsed activations are still stored.
    const stored = await admin<{ activations: { identifier: string; exempt: boolean }[] }>(
      'GET',
      `/licenses/${lapsing}`,
    );
    expect(stored.activations).toEqual([
      expect.objectContaining({ identifier: 'live.example', exempt: false }),
      expect.objectContaining({ identifier: 'staging.shop.example', exempt: true }),
    ]);

    const session = await openConsole(browser, system);
    const { page } = session;
    const facts = () => page.locator('dl.facts').innerText();
    const row = (identifier: string) =>
      page
        .getByRole('region', { name: /^Activations/ })
        .locator('tbody tr', { hasText: identifier });
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, kept);
      await expect(facts()).resolves.toMatch(
        /Lease\s+Activations lapse after 1 hour \(3600 s\) unless renewed/,
      );
      await row('leased.example').locator(`time[datetime="${keptUntil}"]`).waitFor();
      const running = await row('leased.example').innerText();
      expect(running).toMatch(/renews while in use; lapses at/);
      expect(running).not.toMatch(/lapsed|exempt/);

      await page.getByRole('button', { name: 'Back to licenses' }).click();
      await openLicense(page, lapsing);
      const text = await facts();
      expect(text).toMatch(/Lease\s+Activations lapse after 1 second unless renewed/);
      // The license keeps them until its next use, and its counts say they count for nothing.
      expect(text).toMatch(/Activations used\s+1 of 1 \(1 lapsed: not counted/);
      expect(text).toMatch(/Exempt activations\s+1 of 2 exempt slots used \(1 lapsed: not counted/);
      expect(text).toMatch(/Exempt identifiers\s+staging\.\*/);
      const live = await row('live.example').innerText();
      expect(live).toMatch(/lapsed, not counted/);
      expect(live).not.toMatch(/exempt|renews while in use/);
      const staging = await row('staging.shop.example').innerText();
      expect(staging).toMatch(/staging\.shop\.example\s+exempt \(staging, not counted\)/);
      await screenshot(page, 'console-lapsed-and-exempt');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('a license with more activations than its detail holds pages through them all, and finds one by identifier', async () => {
    const fleet = await admin<{ id: number }>('POST', '/plans', {
      name: 'Fleet',
      activation_type: 'instance',
      activation_limit: 0,
    });
    const key = await issue(fleet.id);
    const node = (n: number) => `node-${String(n).padStart(3, '0')}`;
    for (let n = 1; n <= 102; n += 1) {
      await admin('POST', `/licenses/${key}/activations`, { identifier: node(n) });
    }
    const session = await openConsole(browser, system);
    const { page } = session;
    const activations = page.getByRole('region', { name: /^Activations/ });
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, key);
      await activations.getByText('1–100 of 102 activations (page 1 of 2)').waitFor();
      await expect(activations.locator('tbody tr').count()).resolves.toBe(100);
      await expect(activations.locator('tbody tr', { hasText: node(101) }).count()).resolves.toBe(
        0,
      );
      await page
        .getByRole('navigation', { name: 'Pages of activations' })
        .getByRole('button', { name: 'Next' })
        .click();
      await activations.getByText('101–102 of 102 activations (page 2 of 2)').waitFor();
      await expect(activations.locator('tbody tr').allInnerTexts()).resolves.toEqual([
        expect.stringContaining(node(101)),
        expect.stringContaining(node(102)),
      ]);

      // Found in another spelling, as the API normalises it; removed from the page it is on.
      await page.getByLabel('Find an activation by identifier').fill('  node-050 ');
      await page.getByRole('button', { name: 'Find', exact: true }).click();
      await activations.getByText('1–1 of 1 activations (page 1 of 1)').waitFor();
      await expect(activations.locator('tbody tr').allInnerTexts()).resolves.toEqual([
        expect.stringContaining(node(50)),
      ]);
      await screenshot(page, 'console-activation-pages');
      await page.getByRole('button', { name: `Remove ${node(50)}` }).click();
      await page.getByRole('button', { name: 'Remove activation' }).click();
      await page.getByText(`Removed ${node(50)}; its slot is free.`).waitFor();
      await activations.getByText('No activation of this identifier.').waitFor();
      await page.getByRole('button', { name: 'Show all', exact: true }).click();
      await activations.getByText('1–100 of 101 activations (page 1 of 2)').waitFor();
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('the last license file issued for an activation is shown in its row', async () => {
    const key = await issue(plans.three);
    await activated(key, 'offline.example');
    await activated(key, 'online.example');
    const checkout = await fetch(`${system.gatewayUrl}${API_BASE}/licenses/checkout`, {
      method: 'POST',
      body: new URLSearchParams({
        license_key: key,
        identifier: 'offline.example',
        product_id: String(product.id),
      }),
    });
    const issued = ((await checkout.json()) as { data: { issued_at: string } }).data;
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, key);
      const offline = page.locator('tbody tr', { hasText: 'offline.example' });
      await offline.locator(`time[datetime="${issued.issued_at}"]`).waitFor();
      const online = page.locator('tbody tr', { hasText: 'online.example' });
      await expect(online.innerText()).resolves.toMatch(/none issued/);
      expectClean(session);
    } finally {
      await page.close();
    }
  });

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

  test('a refused activation through the public API appears as a rejected attempt with the name sent, why it was refused, its tries and last try; a refused Add here too', async () => {
    const key = await issue(plans.single);
    await activated(key, 'first.example');
    for (let i = 0; i < 2; i += 1) {
      const refused = await activate(key, 'https://second.example/', 'Second shop');
      expect(refused.status).toBe(403);
    }
    const session = await openConsole(browser, system);
    const { page } = session;
    const section = page.getByRole('region', { name: 'Rejected activation attempts' });
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, key);
      const row = section.locator('tbody tr', { hasText: 'second.example' });
      await row.waitFor();
      await expect(row.locator('td').allInnerTexts()).resolves.toEqual([
        'second.example',
        'Second shop',
        'Full: every activation slot was in use',
        '2',
        expect.any(String),
      ]);
      await expect(row.locator('time').getAttribute('title')).resolves.toMatch(/GMT$/);
      // No spec section numbers in what the page says.
      await expect(page.locator('main').innerText()).resolves.not.toMatch(/spec \d/i);

      // An Add refused on the full license is recorded as the public call's refusal is.
      await page.getByLabel('Identifier').fill('third.example');
      await page.getByLabel('Name', { exact: true }).fill('Third shop');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      await expect(alertText(page)).resolves.toMatch(/1 of 1 activations are in use/);
      await page.getByRole('button', { name: 'Refresh' }).click();
      const added = section.locator('tbody tr', { hasText: 'third.example' });
      await added.waitFor();
      await expect(added.locator('td').allInnerTexts()).resolves.toEqual([
        'third.example',
        'Third shop',
        'Full: every activation slot was in use (an Add in this console)',
        '1',
        expect.any(String),
      ]);
      await screenshot(page, 'console-rejected-attempts');
      expectClean(session, [409]);
    } finally {
      await page.close();
    }
  });

  test('an uploaded file shows its progress and is what the update check offers', async () => {
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Products and plans' }).click();
      const form = page.getByRole('form', { name: 'New product' });
      await form.getByLabel('Title').fill('Upload Plugin');
      await form.getByRole('button', { name: 'Create product' }).click();
      await page.getByText('Created Upload Plugin.').waitFor();
      const { products } = await admin<{ products: { id: number; title: string }[] }>(
        'GET',
        '/products',
      );
      const uploaded = products.find((p) => p.title === 'Upload Plugin')!;
      await page.getByRole('button', { name: 'Versions and files of Upload Plugin' }).click();
      await page.getByRole('heading', { name: 'Versions and files: Upload Plugin' }).waitFor();
      const offers = page.getByRole('region', { name: 'What the update check offers now' });
      const withoutKey = offers.locator('tbody tr', { hasText: 'Without a key' });
      await expect(withoutKey.innerText()).resolves.toMatch(/Nothing is offered/);

      await page.getByText('New version').click();
      await page.getByLabel('Version', { exact: true }).fill('2.0.0');
      await page.getByRole('button', { name: 'Create version' }).click();
      await page.getByRole('heading', { name: /Version 2\.0\.0/ }).waitFor();

      // A slow uplink, so the progress bar is seen between empty and full.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: 1024 * 1024,
      });
      const bytes = Buffer.alloc(2 * 1024 * 1024, 'x');
      // Each field of the upload form is named by its label.
      await expect(page.getByLabel('For', { exact: true }).inputValue()).resolves.toBe('');
      await page.getByLabel('Package file').setInputFiles({
        name: 'upload-plugin-2.0.0.zip',
        mimeType: 'application/zip',
        buffer: bytes,
      });
      await page.getByRole('button', { name: 'Upload', exact: true }).click();
      const bar = page.getByRole('progressbar', { name: 'Upload of upload-plugin-2.0.0.zip' });
      // Part-way: the bar shows a value between empty and full.
      await page
        .locator('progress:not([value="0"]):not([value="100"])')
        .waitFor({ timeout: 20_000 });
      await screenshot(page, 'console-upload-progress');
      await page
        .getByText('Uploaded upload-plugin-2.0.0.zip (2.0 MB).')
        .waitFor({ timeout: 30_000 });
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 0,
        downloadThroughput: -1,
        uploadThroughput: -1,
      });
      await expect(bar.getAttribute('value')).resolves.toBe('100');

      await withoutKey.filter({ hasText: 'upload-plugin-2.0.0.zip' }).waitFor();
      await expect(withoutKey.innerText()).resolves.toMatch(/2\.0\.0\s+upload-plugin-2\.0\.0\.zip/);
      await screenshot(page, 'console-versions-and-offers');
      const check = await fetch(`${system.gatewayUrl}${API_BASE}/updates/${uploaded.id}`);
      const update = ((await check.json()) as { data: Record<string, unknown> }).data;
      expect(update).toMatchObject({
        update_available: true,
        version: '2.0.0',
        file_size: bytes.length,
      });

      // Restricted to one plan, the file is offered to that plan's keys only.
      await page.getByLabel('Plans of upload-plugin-2.0.0.zip').selectOption({
        label: 'Only Single site (domain, limit 1)',
      });
      await page.getByText('upload-plugin-2.0.0.zip is now for Single site.').waitFor();
      await withoutKey.filter({ hasText: 'Nothing is offered' }).waitFor();
      await expect(
        offers.locator('tbody tr', { hasText: 'A key of Single site' }).innerText(),
      ).resolves.toMatch(/2\.0\.0/);
      await expect(
        offers.locator('tbody tr', { hasText: 'A key of Three sites' }).innerText(),
      ).resolves.toMatch(/Nothing is offered/);
      const after = await fetch(`${system.gatewayUrl}${API_BASE}/updates/${uploaded.id}`);
      await expect(after.json()).resolves.toMatchObject({ data: { update_available: false } });
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('a refused download is in the download log, its reason given as a code and in words that tell no key, an unknown key and a revoked license apart', async () => {
    const gated = await admin<{ id: number }>('POST', '/products', { title: 'Gated Plugin' });
    const version = await admin<{ id: number }>('POST', `/products/${gated.id}/versions`, {
      version: '1.0.0',
    });
    const upload = new FormData();
    upload.append('file', new Blob(['the bytes of Gated Plugin 1.0.0']), 'gated-1.0.0.zip');
    const stored = await fetch(`${system.managementUrl}/admin/v1/versions/${version.id}/files`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${system.adminToken}` },
      body: upload,
    });
    expect(stored.status).toBe(201);
    const revoked = await issue(plans.single, gated.id, { status: 'revoked' });
    // Oldest first: an unknown key, a revoked license, no key at all.
    for (const query of ['?dlid=no-such-key', `?dlid=${revoked}`, '']) {
      const refused = await fetch(`${system.gatewayUrl}${API_BASE}/downloads/${gated.id}${query}`, {
        headers: { Accept: 'application/json' },
      });
      expect(refused.status).toBe(403);
      await expect(refused.json()).resolves.toMatchObject({ error: { code: 'LICENSE_INVALID' } });
    }

    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Download log' }).click();
      await page.getByRole('heading', { name: 'Download log', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Refused downloads' }).click();
      await page.getByLabel('Product').selectOption({ label: 'Gated Plugin' });
      await page.getByRole('heading', { name: 'Refused downloads', level: 1 }).waitFor();
      await page.getByText('1–3 of 3 refused downloads').waitFor();
      const reasons = await page.locator('tbody tr .reason').allInnerTexts();
      expect(reasons.map((text) => text.replace(/\s+/g, ' '))).toEqual([
        'LICENSE_INVALID No license key was sent.',
        'LICENSE_INVALID The license is revoked.',
        'LICENSE_INVALID No license has this key.',
      ]);
      await expect(page.locator('tbody tr').first().innerText()).resolves.toMatch(/Gated Plugin/);
      await expect(
        page.getByRole('button', { name: 'Refused downloads' }).getAttribute('aria-pressed'),
      ).resolves.toBe('true');
      await screenshot(page, 'console-refused-downloads');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('an identifier, an activation name and a product title holding markup are shown as inert text', async () => {
    const marked = await admin<{ id: number }>('POST', '/products', { title: MARKUP });
    const key = await issue(plans.devices, marked.id);
    await activated(key, MARKUP, MARKUP);
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await openLicense(page, key);
      const row = page.locator('tbody tr', { hasText: MARKUP }).first();
      const cells = await row.locator('td').allInnerTexts();
      expect(cells[0]).toBe(MARKUP);
      expect(cells[1]).toBe(MARKUP);
      await expect(page.locator('dl.facts').innerText()).resolves.toContain(MARKUP);
      await page.getByRole('button', { name: `Remove ${MARKUP}` }).click();
      const dialog = page.getByRole('dialog');
      await expect(dialog.innerText()).resolves.toContain(MARKUP);
      await screenshot(page, 'console-markup-inert');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.getByRole('link', { name: 'Products and plans' }).click();
      await page.getByRole('cell', { name: MARKUP, exact: true }).first().waitFor();
      await expect(page.locator('img').count()).resolves.toBe(0);
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('jobs run on demand show their result, and health shows every service answering', async () => {
    await issue(plans.single, product.id, { expires_at: '2001-01-01T00:00:00Z' });
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Jobs and health' }).click();
      await page.getByRole('heading', { name: 'Jobs and health', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Run License expiry now' }).click();
      await page.getByText(/^License expiry ran: \d+ licenses? marked expired\.$/).waitFor();
      await page.locator('tr[data-task="license-expiry"]', { hasText: 'on demand' }).waitFor();
      await page.getByRole('button', { name: 'Run Rejected attempt pruning now' }).click();
      await page
        .getByText(/^Rejected attempt pruning ran: \d+ rejected attempts? removed\.$/)
        .waitFor();
      await page
        .locator('tr[data-task="rejected-attempt-pruning"]', { hasText: 'on demand' })
        .waitFor();

      for (const service of ['management', 'license', 'update-catalog', 'download', 'webhooks']) {
        const row = page.locator(`tr[data-service="${service}"]`);
        await expect(row.innerText()).resolves.toMatch(/Answering/);
      }
      await expect(page.getByText('Not answering').count()).resolves.toBe(0);
      await screenshot(page, 'console-jobs-and-health');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('the operations page shows the key that signs and where the key set is published', async () => {
    const published = (await (await fetch(`${system.gatewayUrl}${API_BASE}/keys`)).json()) as {
      keys: Array<{ kid: string }>;
    };
    const kid = published.keys[0]!.kid;
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Jobs and health' }).click();
      const section = page.getByRole('region', { name: 'Signing keys' });
      const facts = section.locator('dl[data-signing-keys]');
      await facts.waitFor();
      const text = await facts.innerText();
      expect(text).toMatch(new RegExp(`Signing now\\s+${kid}`));
      expect(text).toMatch(new RegExp(`Published\\s+${kid}`));
      expect(text).toContain(`${system.gatewayUrl}${API_BASE}/keys`);
      await screenshot(page, 'console-signing-keys');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('products, bundles and plans are listed, created and edited', async () => {
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Products and plans' }).click();
      const newPlan = page.getByRole('form', { name: 'New plan' });
      await newPlan.getByLabel('Name').fill('Five devices');
      await newPlan.getByLabel('Activation type').selectOption('device');
      await newPlan.getByLabel('Activation limit').fill('5');
      await newPlan.getByRole('button', { name: 'Create plan' }).click();
      await page.getByText('Created Five devices.').waitFor();
      await page.getByRole('cell', { name: 'Five devices', exact: true }).waitFor();

      const newProduct = page.getByRole('form', { name: 'New product' });
      await newProduct.getByLabel('Title').fill('Starter Bundle');
      await newProduct.getByLabel('Console Plugin').check();
      await newProduct.getByRole('button', { name: 'Create product' }).click();
      await page.getByText('Created Starter Bundle.').waitFor();
      const bundleRow = page.locator('tbody tr', { hasText: 'Starter Bundle' });
      await expect(bundleRow.innerText()).resolves.toMatch(/Console Plugin/);

      await page.getByRole('button', { name: 'Edit Console Plugin' }).click();
      const edit = page.getByRole('form', { name: 'Edit Console Plugin' });
      await edit
        .getByLabel('Download API Access')
        .selectOption({ label: 'License key + activated identifier' });
      await edit.getByLabel('Requires License').uncheck();
      await edit.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved Console Plugin.').waitFor();
      await page
        .locator('tbody tr', { hasText: 'Console Plugin' })
        .filter({ hasText: 'License key + activated identifier' })
        .waitFor();
      const changed = await admin<{ download_access: string; requires_license: boolean }>(
        'GET',
        `/products/${product.id}`,
      );
      expect(changed).toMatchObject({
        download_access: 'activated_identifier',
        requires_license: false,
      });
      await admin('PATCH', `/products/${product.id}`, {
        download_access: 'license_key',
        requires_license: true,
      });
      await screenshot(page, 'console-products-and-plans');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('the plans page creates a plan with a lease and exempt identifiers, and edits one by keyboard; a refused pattern is said beside the form', async () => {
    const session = await openConsole(browser, system);
    const { page } = session;
    const planRow = () => page.locator('tbody tr', { hasText: 'Staging friendly' });
    try {
      await signIn(page, system.adminToken, 'Licenses');
      await page.getByRole('link', { name: 'Products and plans' }).click();
      const newPlan = page.getByRole('form', { name: 'New plan' });
      // The form says what the patterns are and when licenses take the settings.
      const said = await newPlan.innerText();
      expect(said).toMatch(/\*\.test/);
      expect(said).toMatch(/staging\.\*/);
      expect(said).toMatch(/\*@example\.com/);
      expect(said).toMatch(
        /Licenses take the lease and exempt settings when issued on this plan or moved to it/,
      );
      await expect(newPlan.getByLabel('Exempt activations per license').inputValue()).resolves.toBe(
        '3',
      );
      await newPlan.getByLabel('Name').fill('Staging friendly');
      await newPlan.getByLabel('Activation limit').fill('2');
      await newPlan.getByLabel('Lease (seconds; empty for none)').fill('3600');
      await newPlan
        .getByLabel('Exempt identifiers (one pattern per line)')
        .fill('*.test\nStaging.*\n\nlocalhost');
      await newPlan.getByLabel('Exempt activations per license').fill('2');
      await newPlan.getByRole('button', { name: 'Create plan' }).click();
      await page.getByText('Created Staging friendly.').waitFor();
      await planRow().waitFor();
      const created = await planRow().innerText();
      expect(created).toMatch(/1 hour \(3600 s\)/);
      expect(created).toMatch(/\*\.test\s+staging\.\*\s+localhost\s+up to 2 per license/);
      const { plans: stored } = await admin<{ plans: Array<{ id: number; name: string }> }>(
        'GET',
        '/plans',
      );
      const id = stored.find((plan) => plan.name === 'Staging friendly')!.id;
      await expect(admin('GET', `/plans/${id}`)).resolves.toMatchObject({
        lease_seconds: 3600,
        exempt_identifiers: ['*.test', 'staging.*', 'localhost'],
        exempt_limit: 2,
      });

      // By keyboard: Enter on Edit opens the form with focus in its first field.
      await page.getByRole('button', { name: 'Edit plan Staging friendly' }).focus();
      await page.keyboard.press('Enter');
      const edit = page.getByRole('form', { name: 'Edit plan Staging friendly' });
      await edit.waitFor();
      await expect(edit.innerText()).resolves.toMatch(/when issued on this plan or moved to it/);
      await focusOn(page, "el.name === 'name'");
      await page.keyboard.press('Tab');
      await focusOn(page, "el.name === 'lease_seconds'");
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Backspace');
      await page.keyboard.press('Tab');
      await focusOn(page, "el.name === 'exempt_identifiers'");
      await page.keyboard.press('Control+A');
      await page.keyboard.type('sh*p.test');
      await page.keyboard.press('Tab');
      await focusOn(page, "el.name === 'exempt_limit'");
      await page.keyboard.press('Control+A');
      await page.keyboard.type('1');
      // Enter in a field sends the form; the API's refusal names the pattern, beside the form.
      await page.keyboard.press('Enter');
      const refusal = await edit.getByRole('alert').innerText();
      expect(refusal).toMatch(/"sh\*p\.test"/);
      expect(refusal).toMatch(/INVALID_REQUEST/);
      await screenshot(page, 'console-plan-pattern-refused');

      await page.keyboard.press('Shift+Tab');
      await focusOn(page, "el.name === 'exempt_identifiers'");
      await page.keyboard.press('Control+A');
      await page.keyboard.type('*.example.test\nlocalhost');
      await page.keyboard.press('Tab');
      await focusOn(page, "el.name === 'exempt_limit'");
      await page.keyboard.press('Enter');
      await page.getByText('Saved Staging friendly.').waitFor();
      // The form is gone, and focus is back on the button that opened it.
      await edit.waitFor({ state: 'detached' });
      await focusOn(page, "el.getAttribute('aria-label') === 'Edit plan Staging friendly'");
      await planRow().filter({ hasText: 'No lease' }).waitFor();
      await expect(planRow().innerText()).resolves.toMatch(
        /\*\.example\.test\s+localhost\s+up to 1 per license/,
      );
      await expect(admin('GET', `/plans/${id}`)).resolves.toMatchObject({
        lease_seconds: null,
        exempt_identifiers: ['*.example.test', 'localhost'],
        exempt_limit: 1,
      });
      await screenshot(page, 'console-plan-edited');
      expectClean(session, [400]);
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

  test('a plan named as another, in any case, is refused in words; plans are chosen by name, type and limit', async () => {
    const session = await openConsole(browser, system);
    const { page } = session;
    try {
      await signIn(page, system.adminToken, 'Licenses');
      // Every chooser of a plan says its type and limit (once the plans have arrived).
      const planOptions = page
        .getByRole('search')
        .getByLabel('Plan', { exact: true })
        .locator('option');
      await planOptions.nth(1).waitFor({ state: 'attached' });
      await expect(planOptions.allInnerTexts()).resolves.toEqual(
        expect.arrayContaining(['Single site (domain, limit 1)', 'Devices (device, limit 5)']),
      );
      await page.getByRole('link', { name: 'Products and plans' }).click();
      const newPlan = page.getByRole('form', { name: 'New plan' });
      await newPlan.getByLabel('Name').fill('  single   SITE ');
      await newPlan.getByLabel('Activation limit').fill('1');
      await newPlan.getByRole('button', { name: 'Create plan' }).click();
      await expect(newPlan.getByRole('alert').innerText()).resolves.toBe(
        `Plan ${plans.single} is already named "Single site". Plan names are compared without ` +
          'letter case and extra spaces: choose another name. (ALREADY_EXISTS)',
      );
      const { plans: stored } = await admin<{ plans: Array<{ name: string }> }>('GET', '/plans');
      expect(stored.filter((plan) => /^single site$/i.test(plan.name))).toHaveLength(1);
      await screenshot(page, 'console-plan-name-taken');
      expectClean(session, [409]);
    } finally {
      await page.close();
    }
  });

  test.each([
    { width: 1280, height: 900, name: 'desktop' },
    { width: 390, height: 800, name: 'phone' },
  ])(
    'every table fits its box at $width px (under 700 px a card per row, each value named), and every button is on the screen',
    async ({ width, height, name }) => {
      // A list with every column filled: checked licenses, an activation with a long name, a
      // rejected attempt, and served and refused downloads.
      const key = await issue(plans.three);
      await activated(
        key,
        'i-0a1b2c3d4e5f67890.fleet.example',
        'Worker node in eu-west-1, the one with the long name',
      );
      await activated(key, 'shop.example', 'Main shop');
      await activated(key, 'blog.example');
      expect((await activate(key, 'fourth.example', 'Refused')).status).toBe(403);
      await fetch(`${system.gatewayUrl}${API_BASE}/licenses/validate`, {
        method: 'POST',
        body: new URLSearchParams({ license_key: key }),
      });
      await fetch(
        `${system.gatewayUrl}${API_BASE}/downloads/${product.id}?dlid=${key}&identifier=elsewhere.example`,
        {
          headers: { Accept: 'application/json' },
        },
      );
      const session = await openConsole(browser, system, { viewport: { width, height } });
      const { page } = session;
      const cards = width < 700;
      const check = async (page: Page, shot: string) => {
        await expect(overflows(page)).resolves.toEqual([]);
        if (cards) await expect(unnamedCells(page)).resolves.toEqual([]);
        await screenshot(page, `console-${name}-${shot}`);
      };
      try {
        await signIn(page, system.adminToken, 'Licenses');
        await page.locator('main tbody tr').first().waitFor();
        await check(page, 'licenses');
        await openLicense(page, key);
        await page
          .getByRole('region', { name: 'Rejected activation attempts' })
          .locator('tbody tr')
          .waitFor();
        await check(page, 'license');
        // The Remove buttons are in view on every card.
        await expect(
          page.getByRole('button', { name: 'Remove shop.example' }).isVisible(),
        ).resolves.toBe(true);
        await page.getByRole('link', { name: 'Download log' }).click();
        await page.locator('main tbody tr').first().waitFor();
        await check(page, 'download-log');
        await page.getByRole('link', { name: 'Products and plans' }).click();
        await page.locator('main tbody tr').first().waitFor();
        await check(page, 'products-and-plans');
        await page.getByRole('link', { name: 'Versions and files' }).click();
        await page.getByLabel('Product').selectOption({ label: 'Console Plugin' });
        await page
          .getByRole('heading', { name: /Versions and files/ })
          .first()
          .waitFor();
        await check(page, 'versions');
        await page.getByRole('link', { name: 'Jobs and health' }).click();
        await page.locator('tr[data-task="license-expiry"]').waitFor();
        await check(page, 'jobs-and-health');
        await page.getByRole('link', { name: 'Webhooks' }).click();
        await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
        await check(page, 'webhooks');
        // Each refused call above was on purpose: a full license's activate, a download.
        expectClean(session);
      } finally {
        await page.close();
      }
    },
  );
});
