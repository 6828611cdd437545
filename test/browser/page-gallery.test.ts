import type { Browser, Locator, Page } from 'playwright-core';
import type { AdminWithToken } from '../../libs/contracts/index.js';
import { publicOpenApi } from '../../services/gateway/openapi.js';
import { managementOpenApi } from '../../services/management/openapi.js';
import {
  expectClean,
  launchBrowser,
  openConsole,
  openSection,
  openTab,
  pageWidth,
  signIn,
  type Session,
} from '../support/browser.js';
import {
  adminCall,
  screenshot,
  startLikeNpmStart,
  type StartedSystem,
} from '../support/started-system.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/**
 * The page gallery: every page of the admin console, every state of the customer portal and the
 * API reference of both ports, 1280 and 390 pixels wide, on one system as `npm start` starts it
 * with data of every kind made through the management API. Each visit saves a full-page
 * screenshot, test-output/screenshots/pages/<app>-<page>-<width>.png, and checks what a person
 * would see break: the page's main heading in view, the page scrolling sideways, a
 * Content-Security-Policy violation, a console error, a dialog or a request to another origin.
 * The console's pages are those of its navigation bar: an entry of the bar with no visit here
 * fails the test.
 */

const SCREENS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
];
const STORE_NAME = 'Plugin Shop';
const STORE_URL = 'https://shop.example/';
const RENEW_URL = 'https://shop.example/renew';

let system: StartedSystem;
let browser: Browser;
let receiver: WebhookReceiver;

const admin = <T>(method: string, path: string, body?: object, token = system.adminToken) =>
  adminCall<T>({ ...system, adminToken: token }, method, path, body);

const PRODUCT = 'Gallery Pro';
const BUNDLE = 'Agency Bundle';
/** What the pages show, made once through the management API and the public API. */
const data = {
  productId: 0,
  /** A bundle license with a customer, metadata, activations and a rejected attempt. */
  agencyKey: '',
  fleetKey: '',
  fullKey: '',
  expiredKey: '',
  revokedKey: '',
  webhookUrl: '',
};

/** The public API, as client software calls it; the answer's status. */
async function publicCall(path: string, init?: RequestInit): Promise<number> {
  const response = await fetch(`${system.gatewayUrl}${API_BASE}${path}`, init);
  await response.arrayBuffer();
  return response.status;
}

async function activate(key: string, identifier: string, name?: string): Promise<number> {
  const fields = { license_key: key, identifier, ...(name ? { name } : {}) };
  return publicCall('/licenses/activate', { method: 'POST', body: new URLSearchParams(fields) });
}

async function issue(fields: object): Promise<string> {
  return (await admin<{ license_key: string }>('POST', '/licenses', fields)).license_key;
}

/** A version of the product with a package file. */
async function release(version: string, releaseNotes: string): Promise<void> {
  const created = await admin<{ id: number }>('POST', `/products/${data.productId}/versions`, {
    version,
    release_notes: releaseNotes,
  });
  const upload = new FormData();
  upload.append('file', new Blob([`the bytes of ${version}`]), `gallery-pro-${version}.zip`);
  const stored = await fetch(`${system.managementUrl}/admin/v1/versions/${created.id}/files`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${system.adminToken}` },
    body: upload,
  });
  if (stored.status !== 201) throw new Error(`upload: ${await stored.text()}`);
}

beforeAll(async () => {
  [system, browser, receiver] = await Promise.all([
    startLikeNpmStart({
      SCHEDULED_TASKS: 'off',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      STORE_NAME,
      STORE_URL,
      RENEW_URL,
    }),
    launchBrowser(),
    WebhookReceiver.start(),
  ]);
  // First the endpoint, so that what follows is delivered to it.
  data.webhookUrl = `${receiver.url}/licenses`;
  const hook = await admin<{ id: number }>('POST', '/webhooks', {
    url: data.webhookUrl,
    events: ['*'],
    description: 'Shop back office',
  });

  data.productId = (await admin<{ id: number }>('POST', '/products', { title: PRODUCT })).id;
  await admin('POST', '/store-connections', {
    name: 'Shop (live)',
    provider: 'stripe',
    mode: 'live',
    signing_secret: 'whsec_gallery-signing-secret',
  });
  const forms = await admin<{ id: number }>('POST', '/products', { title: 'Forms Builder' });
  const bundle = await admin<{ id: number }>('POST', '/products', {
    title: BUNDLE,
    bundle_items: [data.productId, forms.id],
  });
  const agency = await admin<{ id: number }>('POST', '/plans', {
    name: 'Agency',
    activation_type: 'domain',
    activation_limit: 3,
    lease_seconds: 30 * 24 * 3600,
    exempt_identifiers: ['staging.*'],
  });
  const single = await admin<{ id: number }>('POST', '/plans', {
    name: 'Single site',
    activation_type: 'domain',
    activation_limit: 1,
  });
  const fleet = await admin<{ id: number }>('POST', '/plans', {
    name: 'Fleet',
    activation_type: 'instance',
    activation_limit: 0,
  });
  await release('2.4.0', 'Faster thumbnails; a new masonry layout.');
  await release('2.5.0', 'Lightbox captions; fixes for right-to-left sites.');

  data.agencyKey = await issue({
    product_id: bundle.id,
    plan_id: agency.id,
    expires_at: '2099-06-30T12:00:00Z',
    customer: { email: 'jane@agency.example', name: 'Jane Doe' },
    metadata: { order_id: 'WC-1001', seller: 'Plugin Shop EU' },
  });
  for (const [identifier, name] of [
    ['https://www.northwind-traders.example/', 'Main shop'],
    ['blog.northwind-traders.example', 'Blog'],
    ['staging.northwind-traders.example', 'Staging'],
    ['outlet.northwind-traders.example', undefined],
  ] as const) {
    expect(await activate(data.agencyKey, identifier, name)).toBe(200);
  }
  // The plan's three slots are taken: a rejected attempt.
  expect(await activate(data.agencyKey, 'fourth-site.example', 'Fourth site')).toBe(403);
  expect(
    await publicCall('/licenses/validate', {
      method: 'POST',
      body: new URLSearchParams({ license_key: data.agencyKey }),
    }),
  ).toBe(200);

  data.fleetKey = await issue({ product_id: data.productId, plan_id: fleet.id });
  for (const id of ['i-0a1b2c3d4e5f67890', 'web-01.eu-west-1.internal', 'worker-7f3c9a']) {
    expect(await activate(data.fleetKey, id)).toBe(200);
  }
  data.fullKey = await issue({ product_id: data.productId, plan_id: single.id });
  expect(await activate(data.fullKey, 'only-site.example', 'The one site')).toBe(200);
  data.expiredKey = await issue({
    product_id: data.productId,
    plan_id: single.id,
    expires_at: '2021-03-01T00:00:00Z',
  });
  data.revokedKey = await issue({
    product_id: forms.id,
    plan_id: single.id,
    status: 'revoked',
  });

  // Trials of the product, on a plan of 14 trial days (docs/api-decisions.md, "Trials").
  const trialPlan = await admin<{ id: number }>('POST', '/plans', {
    name: 'Trial',
    activation_type: 'domain',
    activation_limit: 1,
    trial_days: 14,
  });
  await admin('PATCH', `/products/${data.productId}`, { trial_plan_id: trialPlan.id });
  for (const identifier of ['demo-shop.example', 'https://www.try-it.example/']) {
    const fields = { product_id: String(data.productId), identifier };
    expect(await publicCall('/trials', { method: 'POST', body: new URLSearchParams(fields) })).toBe(
      201,
    );
  }

  // The download log: two served, one refused (a key of another product).
  const download = (dlid: string) =>
    publicCall(`/downloads/${data.productId}?dlid=${dlid}`, {
      headers: { Accept: 'application/json' },
    });
  expect(await download(data.agencyKey)).toBe(200);
  expect(await download(data.fleetKey)).toBe(200);
  expect(await download(data.revokedKey)).toBe(403);

  // A second admin, whose change the audit log shows beside the bootstrap owner's.
  const support = await admin<AdminWithToken>('POST', '/admins', {
    name: 'Sam Support',
    role: 'support',
  });
  await admin(
    'PATCH',
    `/licenses/${data.fullKey}`,
    { metadata: { order_id: 'WC-1002', note: 'Replaced a lost key' } },
    support.token,
  );
  await admin('POST', '/admins', { name: 'Vera Viewer', role: 'viewer' });

  await admin('POST', `/webhooks/${hook.id}/test`);
  await receiver.waitFor((received) =>
    received.some((webhook) => webhook.body.includes('"webhook.test"')),
  );
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await system?.stop();
  await receiver?.stop();
});

/** A page of the gallery: how to get there, and its main heading. */
interface Visit {
  /** Its name in the screenshot's file name. */
  name: string;
  /** Goes there in the tab and waits until the page shows what it is about. */
  open(page: Page): Promise<void>;
  /** The page's main heading. */
  heading(page: Page): Locator;
  /** HTTP refusals the page receives by design, by status. */
  refused?: number[];
}

const h1 = (name: string | RegExp) => (page: Page) => page.getByRole('heading', { name, level: 1 });

const firstRow = (page: Page) => page.locator('main tbody tr').first().waitFor();

/** A section of the console from its navigation bar, once its table has rows. */
const section = (name: string, label: string): Visit => ({
  name,
  heading: h1(label),
  open: async (page) => {
    await openSection(page, label);
    await firstRow(page);
  },
});

/**
 * The console's pages, by the entry of the navigation bar they are under, in the bar's order.
 * They are seen in this order in one tab, signed in; a page that is not a section of its own
 * (a license, a product's versions, an endpoint) is opened from the one before it.
 */
const CONSOLE: Record<string, Visit[]> = {
  Overview: [
    {
      name: 'overview',
      heading: h1('Overview'),
      open: async (page) => {
        await openSection(page, 'Overview');
        await page.locator('dl.figures').waitFor();
        await page.locator('.chart canvas').first().waitFor();
      },
    },
  ],
  Licenses: [
    section('licenses', 'Licenses'),
    {
      name: 'license',
      heading: h1('License'),
      open: async (page) => {
        await openSection(page, 'Licenses');
        await page.getByLabel('Key prefix or identifier').fill(data.agencyKey);
        await page.getByRole('button', { name: 'Search', exact: true }).click();
        await page.getByRole('button', { name: `Open license ${data.agencyKey}` }).click();
        await page
          .getByRole('region', { name: 'Rejected activation attempts' })
          .locator('tbody tr')
          .waitFor();
      },
    },
  ],
  'Products and plans': [section('products-and-plans', 'Products and plans')],
  'Versions and files': [
    {
      name: 'versions',
      heading: h1('Versions and files'),
      open: async (page) => {
        await openSection(page, 'Versions and files');
        await page.getByText('Choose a product to see its versions').waitFor();
      },
    },
    {
      name: 'versions-of-a-product',
      heading: h1(`Versions and files: ${PRODUCT}`),
      open: async (page) => {
        await page.getByLabel('Product').selectOption({ label: PRODUCT });
        await page.getByRole('heading', { name: /^Version 2\.5\.0/ }).waitFor();
        await page
          .locator('article.version tbody tr', { hasText: 'gallery-pro-2.5.0.zip' })
          .waitFor();
      },
    },
    {
      // The product's Updaters panel, open: each feed's URL and snippet.
      name: 'updaters-of-a-product',
      heading: h1(`Versions and files: ${PRODUCT}`),
      open: async (page) => {
        await page.locator('summary', { hasText: 'Updaters' }).click();
        await page.getByRole('region', { name: 'Tauri feed' }).waitFor();
      },
    },
  ],
  'Download log': [
    section('download-log', 'Download log'),
    {
      name: 'refused-downloads',
      heading: h1('Refused downloads'),
      open: async (page) => {
        await page.getByRole('button', { name: 'Refused downloads' }).click();
        await h1('Refused downloads')(page).waitFor();
        await firstRow(page);
      },
    },
  ],
  Trials: [section('trials', 'Trials')],
  Webhooks: [
    section('webhooks', 'Webhooks'),
    {
      name: 'webhook-endpoint',
      heading: h1('Webhook endpoint'),
      open: async (page) => {
        await page.getByRole('button', { name: `Open webhook ${data.webhookUrl}` }).click();
        await page
          .getByRole('region', { name: 'Deliveries' })
          .locator('tbody tr', { hasText: 'webhook.test' })
          .waitFor();
      },
    },
  ],
  Stores: [
    {
      // One connection opened: its events URL, settings and mappings.
      name: 'stores',
      heading: h1('Stores'),
      open: async (page) => {
        await openSection(page, 'Stores');
        await page.getByRole('button', { name: 'Open store connection Shop (live)' }).click();
        await page.getByRole('heading', { name: 'Mappings', level: 3 }).waitFor();
      },
    },
  ],
  'Jobs and health': [
    {
      name: 'jobs-and-health',
      heading: h1('Jobs and health'),
      open: async (page) => {
        await openSection(page, 'Jobs and health');
        await page.locator('tr[data-task]').first().waitFor();
        await page.locator('dl[data-signing-keys]').waitFor();
      },
    },
  ],
  Admins: [
    {
      name: 'admins',
      heading: h1('Admins'),
      open: async (page) => {
        await openSection(page, 'Admins');
        await page.getByRole('heading', { name: 'Vera Viewer', level: 2 }).waitFor();
      },
    },
  ],
  'Audit log': [section('audit-log', 'Audit log')],
};

const CONSOLE_SIGN_IN: Visit = {
  name: 'sign-in',
  heading: h1('Licensing console'),
  open: (page) => page.getByLabel('Admin token').waitFor(),
};

/** A page seen in a tab of its own, opened at its address. */
interface Tab extends Visit {
  address(): string;
}

/**
 * The portal once it has looked up `key()` (read as the visit runs, after the keys are made)
 * and `shown` shows the answer.
 */
const portalWith = (
  name: string,
  key: () => string,
  shown: (page: Page) => Locator,
  refused?: number[],
): Tab => ({
  name,
  address: () => `${system.gatewayUrl}/portal`,
  heading: h1('Your license'),
  open: async (page) => {
    await page.getByLabel('License key').fill(key());
    await page.getByLabel('License key').press('Enter');
    await shown(page).waitFor();
  },
  refused,
});

const licenseOf = (product: string) => (page: Page) =>
  page.getByRole('heading', { name: product, level: 2 });
const nextStep = (page: Page) => page.locator('.next-step');

/** The customer portal: entering a key, and a license in each state a customer finds it in. */
const PORTAL: Tab[] = [
  {
    name: 'key-entry',
    address: () => `${system.gatewayUrl}/portal`,
    heading: h1('Your license'),
    open: (page) => page.getByLabel('License key').waitFor(),
  },
  portalWith('license', () => data.agencyKey, licenseOf(BUNDLE)),
  portalWith('fleet', () => data.fleetKey, licenseOf(PRODUCT)),
  portalWith(
    'full',
    () => data.fullKey,
    (page) => page.locator('.free-slot'),
  ),
  portalWith('expired', () => data.expiredKey, nextStep),
  portalWith('revoked', () => data.revokedKey, nextStep),
  portalWith(
    'unknown-key',
    () => 'no-such-key',
    (page) => page.getByRole('alert'),
    [403],
  ),
];

/** The API reference of each port, once it shows its operations. */
const REFERENCE: Tab[] = [
  { name: 'public-api', origin: () => system.gatewayUrl, title: publicOpenApi.info.title },
  {
    name: 'management-api',
    origin: () => system.managementUrl,
    title: managementOpenApi.info.title,
  },
].map(({ name, origin, title }) => ({
  name,
  address: () => `${origin()}/docs`,
  heading: (page) => page.locator('.info .title'),
  open: async (page) => {
    // The reference renders the whole document in the page: on a loaded two-core machine the
    // management API's took over 20 s, so it is given most of the test's 60 s.
    await page.locator('.opblock').first().waitFor({ timeout: 50_000 });
    await page.locator('.info .title', { hasText: title }).waitFor();
  },
}));

/** Forgets what the tab did before, so each visit is checked for its own problems. */
function forgetProblems({ problems, dialogs }: Session): void {
  for (const list of [problems.violations, problems.errors, problems.requests, dialogs]) {
    list.length = 0;
  }
}

/**
 * Opens `visit` in the tab, saves its screenshot (before any check, so a broken page is seen
 * too), and checks what a person would see break, of all the tab did since it opened or its
 * problems were last forgotten.
 */
async function look(session: Session, app: string, visit: Visit): Promise<void> {
  const { page } = session;
  await visit.open(page);
  const screen = page.viewportSize()!.width;
  await screenshot(page, `pages/${app}-${visit.name}-${screen}`);
  const heading = visit.heading(page);
  await expect(heading.isVisible()).resolves.toBe(true);
  const box = (await heading.boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(screen);
  await expect(pageWidth(page)).resolves.toBeLessThanOrEqual(screen);
  expectClean(session, visit.refused);
}

describe.each(SCREENS)('$width px wide', (viewport) => {
  describe('the admin console', () => {
    let session: Session;
    beforeAll(async () => {
      session = await openConsole(browser, system, { viewport });
    });
    afterAll(async () => {
      await session?.page.close();
    });

    test('the sign-in page', () => look(session, 'console', CONSOLE_SIGN_IN));

    test("every entry of the navigation bar has its pages in the gallery, in the bar's order", async () => {
      await signIn(session.page, system.adminToken);
      // The bar shows the sections of the admin's role once it knows the admin.
      await session.page.locator('.topbar .who').waitFor();
      const entries = await session.page
        .getByRole('navigation', { name: 'Sections' })
        .getByRole('link')
        .allInnerTexts();
      expect(entries).toEqual(Object.keys(CONSOLE));
    });

    test.each(Object.values(CONSOLE).flat())('$name', (visit) => {
      forgetProblems(session);
      return look(session, 'console', visit);
    });
  });

  describe.each([
    { app: 'portal', tabs: PORTAL },
    { app: 'reference', tabs: REFERENCE },
  ])('$app', ({ app, tabs }) => {
    test.each(tabs)('$name', async (tab) => {
      const session = await openTab(browser, tab.address(), { viewport });
      try {
        await look(session, app, tab);
      } finally {
        await session.page.close();
      }
    });
  });
});
