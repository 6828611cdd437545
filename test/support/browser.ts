import { existsSync } from 'node:fs';
import { text } from 'node:stream/consumers';
import {
  chromium,
  type Browser,
  type BrowserServer,
  type Download,
  type Page,
} from 'playwright-core';

/**
 * Headless Chromium for the tests of the web pages: the system's own browser (Debian's
 * `chromium`, or CHROMIUM_PATH), driven by playwright-core. Nothing is downloaded.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const launchOptions = {
  executablePath: CHROMIUM_PATH,
  headless: true,
  // No sandbox as root in a container; no calls home from the browser. No GPU process and no
  // GPU emulation: the pages are drawn in software, with less work for the machine.
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--in-process-gpu',
    '--disable-software-rasterizer',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

/** Where the run's one Chromium listens (test/support/global-setup.ts starts it). */
export const SHARED_BROWSER_ENV = 'TEST_BROWSER_ENDPOINT';

/**
 * The run's one Chromium, started before the first test file when the machine has one: every
 * browser test file connects to it rather than starting a browser of its own, and each test
 * still gets a browser context of its own (openTab). Closing what this returns disconnects.
 */
export async function startSharedBrowser(): Promise<BrowserServer | undefined> {
  if (!existsSync(CHROMIUM_PATH)) return undefined;
  const server = await chromium.launchServer(launchOptions);
  process.env[SHARED_BROWSER_ENV] = server.wsEndpoint();
  return server;
}

export async function launchBrowser(): Promise<Browser> {
  const shared = process.env[SHARED_BROWSER_ENV];
  if (shared) return chromium.connect(shared, { timeout: 30_000 });
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}: install it (apt-get install chromium) or set CHROMIUM_PATH.`,
    );
  }
  return chromium.launch(launchOptions);
}

/** What a page did that a test may want to refuse: CSP violations, errors, foreign requests. */
export interface PageProblems {
  violations: string[];
  errors: string[];
  requests: string[];
}

/**
 * Records, on `page`, every Content-Security-Policy violation, console error and uncaught
 * exception, and every request the page makes (to check it loads nothing from elsewhere).
 */
export async function watchPage(page: Page): Promise<PageProblems> {
  const problems: PageProblems = { violations: [], errors: [], requests: [] };
  await page.exposeFunction('__recordViolation', (text: string) => {
    problems.violations.push(text);
  });
  // Runs in the page, before its own scripts: a string, as it is not this process's code.
  await page.addInitScript({
    content: `document.addEventListener('securitypolicyviolation', (event) => {
      window.__recordViolation(event.violatedDirective + ' ' + event.blockedURI);
    });`,
  });
  page.on('console', (message) => {
    if (message.type() === 'error') problems.errors.push(message.text());
  });
  page.on('pageerror', (error) => problems.errors.push(error.message));
  page.on('request', (request) => problems.requests.push(request.url()));
  return problems;
}

/** A tab a test drives, and what it did that the test may refuse. */
export interface Session {
  page: Page;
  /** The origin the tab was opened at: the only one it may load anything from. */
  origin: string;
  problems: PageProblems;
  /** Every alert, confirm or prompt the page opened (each dismissed at once). */
  dialogs: string[];
}

export interface TabOptions {
  /** The screen's size; Playwright's 1280 × 720 when not given. */
  viewport?: { width: number; height: number };
  /** Permissions granted to the tab's origin, e.g. the clipboard for a Copy button. */
  permissions?: string[];
}

/**
 * A fresh tab at `url`, in a browser context of its own (its own storage: nothing of another
 * test's sign-in), watched for what a test refuses. Closing the page closes its context.
 */
export async function openTab(
  browser: Browser,
  url: string,
  { viewport, permissions }: TabOptions = {},
): Promise<Session> {
  const page = await browser.newPage(viewport ? { viewport } : {});
  const origin = new URL(url).origin;
  if (permissions) await page.context().grantPermissions(permissions, { origin });
  const problems = await watchPage(page);
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  await page.goto(url);
  return { page, origin, problems, dialogs };
}

/** A fresh tab on the admin console (the management port's `/`), at its sign-in page. */
export function openConsole(
  browser: Browser,
  system: { managementUrl: string },
  options?: TabOptions,
): Promise<Session> {
  return openTab(browser, `${system.managementUrl}/`, options);
}

/** Opens a section of the console from its navigation bar, by the label the bar shows. */
export async function openSection(page: Page, label: string): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Sections' })
    .getByRole('link', { name: label })
    .click();
  try {
    await page.getByRole('heading', { name: label, level: 1 }).waitFor();
  } catch (error) {
    throw new Error(`The ${label} section did not open: ${await pageState(page)}`, {
      cause: error,
    });
  }
}

/**
 * What the page shows, for a failure's message (a failure that happens once in many runs is
 * found from it): the title, the main headings, the navigation's links and the alerts.
 */
async function pageState(page: Page): Promise<string> {
  try {
    const texts = (selector: string) =>
      page.locator(selector).evaluateAll((nodes) =>
        nodes.map((node) => {
          const current = node.getAttribute('aria-current');
          return (node.textContent ?? '').trim() + (current ? ` [${current}]` : '');
        }),
      );
    return JSON.stringify({
      title: await page.title(),
      headings: await texts('h1'),
      navigation: await texts('nav a'),
      alerts: await texts('[role="alert"], [role="status"]'),
    });
  } catch (error) {
    return `(the page could not be read: ${String(error)})`;
  }
}

/**
 * Signs in on the console's sign-in page with `token`; the overview is the first page. Then
 * opens `section` (a label of the navigation bar) when one is named.
 */
export async function signIn(page: Page, token: string, section?: string): Promise<void> {
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
  try {
    await page.getByRole('heading', { name: 'Overview', level: 1 }).waitFor();
  } catch (error) {
    throw new Error(`Signing in did not open the Overview: ${await pageState(page)}`, {
      cause: error,
    });
  }
  if (section !== undefined) await openSection(page, section);
}

/**
 * Nothing went wrong on the page: no CSP violation, no dialog, no console error, no request to
 * another origin. Chromium logs every HTTP error answer a page receives ("Failed to load
 * resource: ... status of 409"): those a test provoked on purpose are listed by status, and
 * there must be exactly those.
 */
export function expectClean(
  { origin, problems, dialogs }: Session,
  refusedStatuses: number[] = [],
): void {
  expect(problems.violations).toEqual([]);
  expect(dialogs).toEqual([]);
  const refusal = /^Failed to load resource: the server responded with a status of (\d{3})\b/;
  const refused = problems.errors.flatMap((text) => {
    const match = refusal.exec(text);
    return match ? [Number(match[1])] : [];
  });
  expect(problems.errors.filter((text) => !refusal.test(text))).toEqual([]);
  expect(refused.sort()).toEqual([...refusedStatuses].sort());
  expect(problems.requests.filter((url) => !url.startsWith(origin))).toEqual([]);
}

/** How wide the document is: wider than the screen when the page scrolls sideways. */
export function pageWidth(page: Page): Promise<number> {
  return page.evaluate('document.documentElement.scrollWidth') as Promise<number>;
}

/** What a download saved, as text (read from the browser, which may run in another process). */
export async function downloadedText(download: Download): Promise<string> {
  return text(await download.createReadStream());
}
