import { createHash } from 'node:crypto';
import express, { type RequestHandler } from 'express';
import { pageSecurityHeaders, type Route } from '../http/index.js';
import { loadWebApp, webApps, type WebAppName } from './apps.js';

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
  html: string;
  assets: Map<string, Asset>;
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
  const css = assets.has('app.css')
    ? `<link rel="stylesheet" href="${options.assetsPath}/app.css">\n`
    : '';
  const html = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(webApps[options.app].title)}</title>
<link rel="icon" href="data:,">
${css}<script type="module" src="${options.assetsPath}/app.js"></script>
</head>
<body>
<noscript>This page needs JavaScript.</noscript>
<div id="app"></div>
</body>
</html>
`;
  return { html, assets };
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
    handlers: () => [
      pageSecurityHeaders,
      async (_req, res) => {
        res
          .set('Cache-Control', 'no-store')
          .type('html')
          .send((await load()).html);
      },
    ],
  };
  return { route, assets, assetsPath };
}
