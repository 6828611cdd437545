import { createHash } from 'node:crypto';
import express, { type RequestHandler } from 'express';
import { pageSecurityHeaders, type Route } from '../http/index.js';
import { loadWebApp, webApps, type WebAppName } from './apps.js';
import { PAGE_CONFIG_ID } from './page-config-id.js';

/**
 * The project's web pages (the admin console, the customer portal): small Preact apps written in
 * TSX (apps.ts), served by the project itself, so nothing comes from a CDN. They are safe by
 * construction: Preact renders every value as text, and the pages' Content-Security-Policy
 * (libs/http/page-security.ts) allows scripts and styles from their own origin only, no inline
 * script, no framing.
 */

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

interface Bundle {
  assets: Map<string, Asset>;
}

/**
 * What a page says beyond its app: its title, and settings its app reads at start (its config,
 * JSON in the page, read with libs/web/ui/page-config.ts).
 */
export interface PageSettings {
  title?: string;
  config?: Record<string, unknown>;
}

/**
 * JSON to put in a page inside `<script type="application/json">`: a data block, never run, so
 * the page's Content-Security-Policy stays as it is. `<`, `>` and `&` are written as escapes, so
 * no value can close the element or start markup; U+2028 and U+2029 too, for older parsers.
 */
export function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

async function bundle(options: { app: WebAppName; assetsPath: string }): Promise<Bundle> {
  const assets = new Map<string, Asset>();
  for (const [name, body] of await loadWebApp(options.app)) {
    assets.set(name, {
      body,
      type: name.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
    });
  }
  return { assets };
}

/** The page of an app: its title escaped, its config as a data block, its assets. */
function pageHtml(options: {
  app: WebAppName;
  assetsPath: string;
  hasCss: boolean;
  page: PageSettings;
}): string {
  const css = options.hasCss
    ? `<link rel="stylesheet" href="${options.assetsPath}/app.css">\n`
    : '';
  const config =
    options.page.config === undefined
      ? ''
      : `<script type="application/json" id="${PAGE_CONFIG_ID}">${jsonForHtml(options.page.config)}</script>\n`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(options.page.title ?? webApps[options.app].title)}</title>
<link rel="icon" href="data:,">
${css}${config}<script type="module" src="${options.assetsPath}/app.js"></script>
</head>
<body>
<noscript>This page needs JavaScript.</noscript>
<div id="app"></div>
</body>
</html>
`;
}

/**
 * One web app: its page (a route of the surface's table, so it is documented like every other)
 * and its assets (served under `<path>/assets/`, with the page's security headers). The bundle
 * is built once, on first use.
 */
export function webApp<Deps>(options: {
  /** Which app (apps.ts). */
  app: WebAppName;
  /** Where the page is served: `/` or `/portal`. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  /** The page's title and config, from what the surface runs on (its settings). */
  page?: (deps: Deps) => PageSettings;
}): { route: Route<Deps>; assets: RequestHandler; assetsPath: string } {
  const assetsPath = `${options.path === '/' ? '' : options.path}/assets`;
  let built: Promise<Bundle> | undefined;
  const load = () => {
    built ??= bundle({ app: options.app, assetsPath }).catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    return built;
  };
  const assets = express.Router();
  assets.use(pageSecurityHeaders);
  assets.use(async (req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const asset = (await load()).assets.get(req.path.slice(1));
    if (!asset) return next();
    res.set({ 'Content-Type': asset.type, ETag: asset.etag, 'Cache-Control': 'no-cache' });
    if (req.get('if-none-match') === asset.etag) {
      res.status(304).end();
      return;
    }
    res.send(asset.body);
  });
  const route: Route<Deps> = {
    method: 'get',
    path: options.path,
    operationId: options.operationId,
    summary: options.summary,
    tag: options.tag,
    access: 'public',
    success: { 200: { description: 'An HTML page.', html: true } },
    errors: {},
    handlers: (deps) => {
      const page = options.page?.(deps) ?? {};
      // The same page for every request: written once its bundle is built.
      let html: string | undefined;
      return [
        pageSecurityHeaders,
        async (_req, res) => {
          html ??= pageHtml({
            app: options.app,
            assetsPath,
            hasCss: (await load()).assets.has('app.css'),
            page,
          });
          res.set('Cache-Control', 'no-store').type('html').send(html);
        },
      ];
    },
  };
  return { route, assets, assetsPath };
}
