import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import {
  expectClean,
  launchBrowser,
  openTab,
  pageWidth,
  type Session,
} from '../support/browser.js';
import {
  adminCall,
  screenshot,
  startLikeNpmStart,
  type StartedSystem,
} from '../support/started-system.js';

/**
 * The customer portal (spec 1, 2.3) in a real browser, on the system as `npm start` starts it:
 * a customer enters their key (never put into a URL) and sees their license and activated
 * identifiers, each activation's name on hover or keyboard focus. Read-only, and it works on a
 * phone-sized screen. It speaks for the store of its settings (STORE_NAME, STORE_URL, RENEW_URL,
 * STORE_LOGO_FILE), and tells the holder of a license that cannot be used what to do next.
 */

let system: StartedSystem;
let browser: Browser;
let logoDirectory: string;
let key: string;
/** Licenses in each state a customer may find theirs in. */
const keys = { expired: '', revoked: '', cancelled: '', full: '', fleet: '' };
const STORE_NAME = 'Plugin Shop <b>& Co</b>';
const STORE_URL = 'https://shop.example/';
const RENEW_URL = 'https://shop.example/renew';
const LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><circle cx="20" cy="20" r="18" fill="#0b5cad"/></svg>';
/** A name far longer than a screen is wide. */
const LONG_NAME = `The staging copy of the agency's main shop ${'and its many subsidiaries '.repeat(8)}`;
const INSTANCE_IDS = ['i-0a1b2c3d4e5f67890', 'web-01.eu-west-1.internal', 'worker-7f3c9a'];
/** A license on a plan with a lease and a staging pattern, and its activations' lease ends. */
let leasedKey: string;
const leaseEnds: Record<string, string | null> = {};
const MARKUP = '<img src=x onerror=alert(1)>';

const admin = <T>(method: string, path: string, body?: object) =>
  adminCall<T>(system, method, path, body);

/** Activates `identifier` with `licenseKey`; when its lease ends (null: no lease). */
async function activate(
  identifier: string,
  name?: string,
  licenseKey = key,
): Promise<string | null> {
  const fields = new URLSearchParams({
    license_key: licenseKey,
    identifier,
    ...(name ? { name } : {}),
  });
  const response = await fetch(
    `${system.gatewayUrl}/api/index.php/v1/licensing/licenses/activate`,
    {
      method: 'POST',
      body: fields,
    },
  );
  if (!response.ok) throw new Error(`activate ${identifier}: ${await response.text()}`);
  const answer = (await response.json()) as { data: { lease_expires_at: string | null } };
  return answer.data.lease_expires_at;
}

beforeAll(async () => {
  logoDirectory = mkdtempSync(path.join(tmpdir(), 'store-logo-'));
  const logo = path.join(logoDirectory, 'logo.svg');
  writeFileSync(logo, LOGO);
  [system, browser] = await Promise.all([
    startLikeNpmStart({ STORE_NAME, STORE_URL, RENEW_URL, STORE_LOGO_FILE: logo }),
    launchBrowser(),
  ]);
  const one = await admin<{ id: number }>('POST', '/products', { title: 'Gallery Plugin' });
  const two = await admin<{ id: number }>('POST', '/products', { title: 'Forms Plugin' });
  const bundle = await admin<{ id: number }>('POST', '/products', {
    title: 'Agency Bundle',
    bundle_items: [one.id, two.id],
  });
  const plan = await admin<{ id: number }>('POST', '/plans', {
    name: 'Agency',
    activation_type: 'domain',
    activation_limit: 5,
  });
  const license = await admin<{ license_key: string }>('POST', '/licenses', {
    product_id: bundle.id,
    plan_id: plan.id,
    expires_at: '2099-06-30T12:00:00Z',
  });
  key = license.license_key;
  await activate('https://www.shop.example/', 'Main shop');
  await activate('blog.example');
  await activate('inert.example', MARKUP);
  await activate('long-name.example', LONG_NAME);

  const single = await admin<{ id: number }>('POST', '/plans', {
    name: 'Single site',
    activation_type: 'domain',
    activation_limit: 1,
  });
  const issue = async (fields: object) =>
    (
      await admin<{ license_key: string }>('POST', '/licenses', {
        product_id: one.id,
        plan_id: single.id,
        ...fields,
      })
    ).license_key;
  keys.expired = await issue({ expires_at: '2021-03-01T00:00:00Z' });
  keys.revoked = await issue({ status: 'revoked' });
  keys.cancelled = await issue({ status: 'cancelled' });
  keys.full = await issue({});
  await activate('only.example', 'The one site', keys.full);
  const fleet = await admin<{ id: number }>('POST', '/plans', {
    name: 'Fleet',
    activation_type: 'instance',
    activation_limit: 0,
  });
  keys.fleet = (
    await admin<{ license_key: string }>('POST', '/licenses', {
      product_id: one.id,
      plan_id: fleet.id,
    })
  ).license_key;
  for (const id of INSTANCE_IDS) await activate(id, undefined, keys.fleet);

  const leased = await admin<{ id: number }>('POST', '/plans', {
    name: 'Hourly lease',
    activation_type: 'domain',
    activation_limit: 2,
    lease_seconds: 3600,
    exempt_identifiers: ['staging.*'],
  });
  leasedKey = (
    await admin<{ license_key: string }>('POST', '/licenses', {
      product_id: one.id,
      plan_id: leased.id,
    })
  ).license_key;
  for (const identifier of ['live.example', 'staging.shop.example']) {
    leaseEnds[identifier] = await activate(identifier, undefined, leasedKey);
  }
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
  if (logoDirectory) rmSync(logoDirectory, { recursive: true, force: true });
});

/** Opens the portal in a fresh tab and looks the license up, as a customer does. */
async function lookUp(
  licenseKey: string,
  viewport?: { width: number; height: number },
): Promise<Session> {
  const session = await openTab(browser, `${system.gatewayUrl}/portal`, { viewport });
  await session.page.getByLabel('License key').fill(licenseKey);
  await session.page.getByLabel('License key').press('Enter');
  return session;
}

describe('the customer portal', () => {
  test("shows the license, the bundle's products and the activated identifiers", async () => {
    const session = await lookUp(key);
    const { page } = session;
    try {
      await page.getByRole('heading', { name: 'Agency Bundle' }).waitFor();
      const facts = await page.locator('dl.facts').innerText();
      expect(facts).toMatch(/Active/);
      expect(facts).toMatch(/Agency/);
      expect(facts).toMatch(/Gallery Plugin, Forms Plugin/);
      expect(facts).toMatch(/4 of 5 in use/);
      // No lease on this plan: nothing is said to lapse.
      expect(facts).not.toMatch(/renew automatically|lapse/);
      await expect(page.locator('th', { hasText: /lapse/i }).count()).resolves.toBe(0);
      const identifiers = await page.locator('tbody td:first-child .tip').allInnerTexts();
      expect(identifiers.map((text) => text.split('\n')[0])).toEqual(
        expect.arrayContaining(['shop.example', 'blog.example', 'inert.example']),
      );
      // An active license with a free slot: no next step, and how to move it.
      await expect(page.locator('.next-step').count()).resolves.toBe(0);
      await expect(page.locator('main').innerText()).resolves.toMatch(
        /To move the license to another website, first deactivate it on one you no longer use/,
      );
      // The key went in the body of a POST: never into the address.
      expect(page.url()).toBe(`${system.gatewayUrl}/portal`);
      expect(page.url()).not.toContain(key);
      await screenshot(page, 'portal-license');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test('on a plan with a lease, activations renew automatically while in use and each says when it lapses; a staging site is marked not counted', async () => {
    const session = await lookUp(leasedKey);
    const { page } = session;
    const row = (identifier: string) => page.locator('tbody tr', { hasText: identifier });
    try {
      await page.getByRole('heading', { name: 'Gallery Plugin' }).waitFor();
      const facts = await page.locator('dl.facts').innerText();
      // The staging site takes no slot: one of two in use.
      expect(facts).toMatch(/Activations\s+1 of 2 in use/);
      expect(facts).toMatch(
        /Activations renew automatically while in use; one unused for 1 hour lapses/,
      );
      for (const identifier of ['live.example', 'staging.shop.example']) {
        await row(identifier).locator(`time[datetime="${leaseEnds[identifier]}"]`).waitFor();
      }
      await expect(row('live.example').innerText()).resolves.not.toMatch(/not counted/);
      await expect(row('staging.shop.example').innerText()).resolves.toMatch(
        /staging\.shop\.example\s+staging, not counted/,
      );
      await screenshot(page, 'portal-lease-and-staging');
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test("an identifier shows its activation's name on hover and on keyboard focus", async () => {
    const session = await lookUp(key);
    const { page } = session;
    try {
      const shop = page.locator('.tip', { hasText: 'shop.example' });
      const name = shop.getByRole('tooltip');
      await shop.waitFor();
      await expect(name.isVisible()).resolves.toBe(false);
      await shop.hover();
      await expect(name.isVisible()).resolves.toBe(true);
      await expect(name.innerText()).resolves.toBe('Main shop');
      await page.mouse.move(0, 0);
      // Keyboard: Tab moves from the button to the identifiers, and focus shows the name.
      await shop.focus();
      await expect(name.isVisible()).resolves.toBe(true);
      await expect(shop.getAttribute('aria-describedby')).resolves.toBe(
        await name.getAttribute('id'),
      );
      await expect(
        page.locator('.tip', { hasText: 'blog.example' }).locator('[role="tooltip"]').textContent(),
      ).resolves.toBe('No name given');
      await screenshot(page, 'portal-name-on-focus');
    } finally {
      await page.close();
    }
  });

  test("every row's name is shown whole, the last row's too (the table's box does not cut it)", async () => {
    const session = await lookUp(key);
    const { page } = session;
    try {
      const tips = page.locator('.tip');
      await tips.first().waitFor();
      for (const tip of await tips.all()) {
        await tip.focus();
        // A name below the fold is scrolled to, as a reader would.
        await tip.getByRole('tooltip').scrollIntoViewIfNeeded();
        // The point at the middle of the shown name is the name: nothing hides or clips it.
        const seen = await tip.getByRole('tooltip').evaluate((name) => {
          const box = name.getBoundingClientRect();
          const top = name.ownerDocument.elementFromPoint(
            box.x + box.width / 2,
            box.y + box.height / 2,
          );
          return top !== null && name.contains(top);
        });
        expect(seen).toBe(true);
      }
    } finally {
      await page.close();
    }
  });

  test('a name holding markup is shown as text, and runs nothing', async () => {
    const session = await lookUp(key);
    const { page } = session;
    try {
      const inert = page.locator('.tip', { hasText: 'inert.example' });
      await inert.hover();
      await expect(inert.getByRole('tooltip').innerText()).resolves.toBe(MARKUP);
      // The one image is the store's logo.
      await expect(page.locator('img').count()).resolves.toBe(1);
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test("read-only: the page offers no action but looking the license up, and a link to the store's site", async () => {
    const session = await lookUp(key);
    const { page } = session;
    try {
      await page.getByRole('heading', { name: 'Agency Bundle' }).waitFor();
      await expect(page.getByRole('button').allInnerTexts()).resolves.toEqual(['Show my license']);
      await expect(
        page.locator('a').evaluateAll((links) => links.map((a) => a.getAttribute('href'))),
      ).resolves.toEqual([STORE_URL]);
      await expect(
        page.locator('input:not([name="license_key"]), select, textarea').count(),
      ).resolves.toBe(0);
    } finally {
      await page.close();
    }
  });

  test('an unknown key is refused in words', async () => {
    const session = await lookUp('no-such-key');
    const { page } = session;
    try {
      const alert = page.getByRole('alert');
      await alert.waitFor();
      // In the customer's words: the portal shows licenses of every status, so this key is
      // unknown, and nothing else.
      await expect(alert.innerText()).resolves.toBe(
        'No license has this key. Check that it is the whole key you were given with your ' +
          'purchase, with no other characters. (LICENSE_INVALID)',
      );
      await screenshot(page, 'portal-unknown-key');
      // The one error logged is the lookup's refusal.
      expectClean(session, [403]);
    } finally {
      await page.close();
    }
  });

  test('the page speaks for the store of its settings: its name (as text) in the heading and title, its logo, a link to its site', async () => {
    const session = await lookUp(key);
    const { page } = session;
    try {
      const store = page.locator('header.store');
      await expect(store.innerText()).resolves.toBe(STORE_NAME);
      await expect(page.title()).resolves.toBe(`Your license: ${STORE_NAME}`);
      await expect(store.locator('a').getAttribute('href')).resolves.toBe(STORE_URL);
      const logo = store.getByRole('img', { name: `${STORE_NAME} logo` });
      await expect(logo.getAttribute('src')).resolves.toBe(
        `data:image/svg+xml;base64,${Buffer.from(LOGO).toString('base64')}`,
      );
      await expect(
        logo.evaluate((image) => (image as unknown as { naturalWidth: number }).naturalWidth),
      ).resolves.toBe(40);
      await screenshot(page, 'portal-store');
      // The logo comes with the page, under the page's policy: nothing is fetched elsewhere.
      expectClean(session);
    } finally {
      await page.close();
    }
  });

  test.each([
    { width: 1280, height: 900 },
    { width: 390, height: 800 },
  ])(
    'at $width px a long name wraps under its identifier within the screen, and covers nothing of the row above',
    async ({ width, height }) => {
      const session = await lookUp(key, { width, height });
      const { page } = session;
      try {
        const tip = page.locator('.tip', { hasText: 'long-name.example' });
        await tip.focus();
        const name = tip.getByRole('tooltip');
        await expect(name.innerText()).resolves.toBe(LONG_NAME.trim());
        const placed = await tip.evaluate((element) => {
          const shown = element.querySelector('[role="tooltip"]')!.getBoundingClientRect();
          const row = element.closest('tr')!;
          const above = row.previousElementSibling!.getBoundingClientRect();
          const text = element.getBoundingClientRect();
          return {
            left: shown.left,
            right: shown.right,
            top: shown.top,
            lineHeight: parseFloat(
              element.ownerDocument.defaultView!.getComputedStyle(
                element.querySelector('[role="tooltip"]')!,
              ).lineHeight,
            ),
            height: shown.height,
            textBottom: text.bottom,
            aboveBottom: above.bottom,
            screen: element.ownerDocument.documentElement.clientWidth,
          };
        });
        expect(placed.left).toBeGreaterThanOrEqual(0);
        expect(placed.right).toBeLessThanOrEqual(placed.screen);
        // At most 20 rem wide: a long name goes onto several lines.
        expect(placed.right - placed.left).toBeLessThanOrEqual(20 * 16);
        expect(placed.height).toBeGreaterThan(2 * placed.lineHeight);
        // Under its identifier, so the row above stays in view.
        expect(placed.top).toBeGreaterThanOrEqual(placed.textBottom);
        expect(placed.top).toBeGreaterThan(placed.aboveBottom);
        await screenshot(page, `portal-long-name-${width}`);
      } finally {
        await page.close();
      }
    },
  );

  test.each([
    {
      state: 'expired',
      next: 'This license has expired. Renew it to use it again and to get updates.',
      link: { text: 'Renew your license', href: RENEW_URL },
    },
    {
      state: 'revoked',
      next:
        'This license has been revoked and can no longer be used or renewed. To go on using ' +
        `Gallery Plugin, buy a new license from ${STORE_NAME}.`,
      link: { text: `Buy a new license from ${STORE_NAME}`, href: STORE_URL },
    },
    {
      state: 'cancelled',
      next:
        'This license has been cancelled and can no longer be used or renewed. To go on using ' +
        `Gallery Plugin, buy a new license from ${STORE_NAME}.`,
      link: { text: `Buy a new license from ${STORE_NAME}`, href: STORE_URL },
    },
  ] as const)(
    'an $state license says what to do next, with a link to do it',
    async ({ state, next, link }) => {
      const session = await lookUp(keys[state]);
      const { page } = session;
      try {
        const step = page.locator('.next-step');
        await step.waitFor();
        await expect(step.locator('p').first().innerText()).resolves.toBe(next);
        const go = step.getByRole('link', { name: link.text });
        await expect(go.getAttribute('href')).resolves.toBe(link.href);
        // Nothing is activated, and nothing can be: no "yet", and no word of freeing a slot.
        await expect(page.locator('p.empty').innerText()).resolves.toBe(
          'No website is activated with this license.',
        );
        await expect(page.locator('.free-slot').count()).resolves.toBe(0);
        await screenshot(page, `portal-${state}`);
        expectClean(session);
      } finally {
        await page.close();
      }
    },
  );

  test('a full license says how to free a slot', async () => {
    const session = await lookUp(keys.full);
    const { page } = session;
    try {
      await expect(page.locator('.free-slot').innerText()).resolves.toBe(
        'Every activation slot is in use. To use the license on another website, first ' +
          'deactivate it on one you no longer use, in the license settings of the software ' +
          'there: that frees its slot.',
      );
      await expect(page.locator('.next-step').count()).resolves.toBe(0);
    } finally {
      await page.close();
    }
  });

  test.each([
    { width: 1280, height: 900 },
    { width: 390, height: 800 },
  ])(
    'at $width px every table fits the screen (under 700 px a card per activation), and an instance id is never broken',
    async ({ width, height }) => {
      const session = await lookUp(keys.fleet, { width, height });
      const { page } = session;
      try {
        await page.locator('tbody tr').first().waitFor();
        const fit = await page.evaluate(`(() => {
          const wrap = document.querySelector('.table-wrap');
          const box = wrap.getBoundingClientRect();
          return {
            page: document.documentElement.scrollWidth,
            screen: document.documentElement.clientWidth,
            table: wrap.querySelector('table').getBoundingClientRect().width,
            box: box.width,
            cards: [...wrap.querySelectorAll('tbody tr')].map((row) => getComputedStyle(row).display),
            rows: [...wrap.querySelectorAll('tbody tr')].every((row) => row.getBoundingClientRect().right <= box.right + 1),
          };
        })()`);
        expect(fit).toMatchObject({ page: width, screen: width, rows: true });
        expect((fit as { table: number }).table).toBeLessThanOrEqual((fit as { box: number }).box);
        expect(new Set((fit as { cards: string[] }).cards)).toEqual(
          new Set([width < 700 ? 'block' : 'table-row']),
        );
        // Each instance id on one line: whole, not broken inside.
        for (const id of INSTANCE_IDS) {
          const lines = await page.locator('.tip', { hasText: id }).evaluate((element) => {
            const range = element.ownerDocument.createRange();
            range.selectNodeContents(element.firstChild!);
            return new Set([...range.getClientRects()].map((rect) => Math.round(rect.top))).size;
          });
          expect(lines).toBe(1);
        }
        await screenshot(page, `portal-fleet-${width}`);
        expectClean(session);
      } finally {
        await page.close();
      }
    },
  );

  test('works on a phone-sized screen', async () => {
    const session = await lookUp(key, { width: 390, height: 800 });
    const { page } = session;
    try {
      await page.getByRole('heading', { name: 'Agency Bundle' }).waitFor();
      // Nothing wider than the screen: no sideways scrolling of the page.
      await expect(pageWidth(page)).resolves.toBeLessThanOrEqual(390);
      await screenshot(page, 'portal-phone');
      expectClean(session);
    } finally {
      await page.close();
    }
  });
});
