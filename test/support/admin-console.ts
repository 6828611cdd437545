import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from './browser.js';
import { adminCall, startLikeNpmStart, type StartedSystem } from './started-system.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/**
 * What the admin console's browser tests share (the management service's page at `/`, on the
 * system as `npm start` starts it): the system and a browser (importing this module starts them
 * before the file's tests and stops them after), a product and three plans made on it, and the
 * calls and page checks the tests make. Every action goes through the management API with the
 * admin token of the tab, values from the API are shown as text, and neither the token nor a
 * license key ever reaches a URL. Each test checks its page for Content-Security-Policy
 * violations, console errors and `alert` dialogs.
 */

export const TOKEN_ITEM = 'licensing-console.admin-token';
export const MARKUP = '<img src=x onerror=alert(1)>';

export let system: StartedSystem;
export let browser: Browser;
export let product: { id: number; title: string };
export const plans = { single: 0, three: 0, devices: 0 };

export const admin = <T>(method: string, path: string, body?: object) =>
  adminCall<T>(system, method, path, body);

/** A license of `product` on a plan; its key. */
export async function issue(planId: number, productId = product.id, extra: object = {}) {
  const license = await admin<{ license_key: string }>('POST', '/licenses', {
    product_id: productId,
    plan_id: planId,
    expires_at: '2099-06-30T12:00:00Z',
    ...extra,
  });
  return license.license_key;
}

/** The public activate call, as client software makes it (form fields). */
export async function activate(key: string, identifier: string, name?: string): Promise<Response> {
  return fetch(`${system.gatewayUrl}${API_BASE}/licenses/activate`, {
    method: 'POST',
    body: new URLSearchParams({ license_key: key, identifier, ...(name ? { name } : {}) }),
  });
}

export async function activated(key: string, identifier: string, name?: string): Promise<void> {
  const response = await activate(key, identifier, name);
  if (!response.ok) throw new Error(`activate ${identifier}: ${await response.text()}`);
}

/** Activates `identifier`; when its lease ends, as the server says (null: no lease). */
export async function activatedUntil(key: string, identifier: string): Promise<string | null> {
  const response = await activate(key, identifier);
  if (!response.ok) throw new Error(`activate ${identifier}: ${await response.text()}`);
  const answer = (await response.json()) as { data: { lease_expires_at: string | null } };
  return answer.data.lease_expires_at;
}

/**
 * Waits until a moment the server gave has passed, and a margin more: the browser reads the
 * same machine's clock, so by then the page sees it as past too.
 */
export async function waitPast(iso: string, marginMs = 1_500): Promise<void> {
  const wait = Date.parse(iso) + marginMs - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

/** Waits until keyboard focus is on an element that `condition` (run in the page) accepts. */
export async function focusOn(page: Page, condition: string): Promise<void> {
  await page.waitForFunction(
    `(() => { const el = document.activeElement; return !!el && (${condition}); })()`,
  );
}

/** Finds a license by its key in the console's search and opens it. */
export async function openLicense(page: Page, key: string): Promise<void> {
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
export function overflows(page: Page): Promise<string[]> {
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
export function unnamedCells(page: Page): Promise<string[]> {
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

export function alertText(page: Page): Promise<string> {
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
