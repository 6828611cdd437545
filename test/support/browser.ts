import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * Headless Chromium for the tests of the web pages: the system's own browser (Debian's
 * `chromium`, or CHROMIUM_PATH), driven by playwright-core. Nothing is downloaded.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `No Chromium at ${CHROMIUM_PATH}: install it (apt-get install chromium) or set CHROMIUM_PATH.`,
    );
  }
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // No sandbox as root in a container; no calls home from the browser.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
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
