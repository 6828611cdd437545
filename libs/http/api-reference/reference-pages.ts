import { createRequire } from 'node:module';
import path from 'node:path';
import express, { type RequestHandler } from 'express';
import { z } from 'zod';
import { pageSecurityHeaders } from '../page-security.js';
import type { Route } from '../routes/route.js';

/**
 * The API reference of a surface, readable in a browser at `/docs`: Swagger UI (the
 * `swagger-ui-dist` package) served by this process, never from a CDN, so it works offline, under
 * the pages' strict Content-Security-Policy (libs/http/page-security.ts).
 */

const swaggerUiDirectory = path.dirname(
  createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'),
);

/** Only what the page loads is served from the package. */
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png']);

/** Starts Swagger UI on the document the page names (no inline script: the CSP forbids it). */
const START_SCRIPT = `(function () {
  var root = document.getElementById('reference');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-document'),
    dom_id: '#reference',
    deepLinking: true,
    tryItOutEnabled: false,
  });
})();
`;

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

function page(title: string, documentPath: string, assetsPath: string): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="${assetsPath}/swagger-ui.css">
<link rel="icon" type="image/png" href="${assetsPath}/favicon-32x32.png">
</head>
<body>
<main id="reference" data-document="${escapeHtml(documentPath)}"></main>
<script src="${assetsPath}/swagger-ui-bundle.js"></script>
<script src="${assetsPath}/start.js"></script>
</body>
</html>
`;
}

/** The static files of the reference page, under `<docsPath>/assets`. */
export function referenceAssets(): RequestHandler {
  const files = express.static(swaggerUiDirectory, { index: false, fallthrough: true });
  const router = express.Router();
  router.use(pageSecurityHeaders);
  router.use((req, res, next) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (req.path === '/start.js') {
      res.type('text/javascript').set('Cache-Control', 'no-cache').send(START_SCRIPT);
      return;
    }
    if (!ASSETS.has(req.path.slice(1))) return next();
    files(req, res, next);
  });
  return router;
}

/**
 * The routes of a surface's own documentation: its OpenAPI document, and the reference page that
 * renders it. Both are public: they describe the API, they reveal nothing of its data.
 */
export function documentationRoutes<Deps>(options: {
  title: string;
  documentPath: string;
  docsPath: string;
  document: (deps: Deps) => object;
}): Route<Deps>[] {
  const html = page(options.title, options.documentPath, `${options.docsPath}/assets`);
  return [
    {
      method: 'get',
      path: options.documentPath,
      operationId: 'openApiDocument',
      summary: 'This OpenAPI 3.1 document.',
      tag: 'Documentation',
      access: 'public',
      success: { 200: { description: 'The OpenAPI document.', json: z.looseObject({}) } },
      errors: {},
      handlers: (deps) => {
        const document = options.document(deps);
        return [(_req, res) => void res.json(document)];
      },
    },
    {
      method: 'get',
      path: options.docsPath,
      operationId: 'apiReference',
      summary: 'The API reference: this document, readable in a browser.',
      tag: 'Documentation',
      access: 'public',
      success: { 200: { description: 'An HTML page.', html: true } },
      errors: {},
      handlers: () => [pageSecurityHeaders, (_req, res) => void res.type('html').send(html)],
    },
  ];
}
