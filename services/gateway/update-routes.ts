import type { NextFunction, Request, Response } from 'express';
import {
  IdText,
  NonEmptyShortText,
  UpdateInfo,
  unknownProductUpdate,
} from '../../libs/contracts/index.js';
import { sendData, type Route } from '../../libs/http/index.js';
import { decodeFormComponent } from '../../libs/http/index.js';
import { ProductPath, UpdateCheckQuery } from './inputs.js';
import { API_BASE } from './paths.js';
import { publicErrors, type GatewayDeps } from './deps.js';

/**
 * The gateway's own address as this connection reached it (its local socket address), for apps
 * built without a public URL. Unlike the Host header, the client cannot make it name another
 * host.
 */
export function localAddressUrl(req: Request): string {
  const { localAddress = '127.0.0.1', localPort } = req.socket;
  const plain = localAddress.startsWith('::ffff:') ? localAddress.slice(7) : localAddress;
  const host = plain.includes(':') ? `[${plain}]` : plain;
  return `http://${host}:${String(localPort)}`;
}

/**
 * The license key of an update check, or null when the query carries no usable one. Spec 4.4
 * allows only 200, 429 and 500 here, and 5.2 says the key "only changes the scope", so a key
 * that cannot be used never refuses the check: it is answered as without a key
 * (docs/api-decisions.md, Downloads, "The update check answers"). Usable means: every non-empty
 * value sent as `license_key` or `dlid` is the same string, and it is a well-formed key (1 to 255
 * characters, not blank, no NUL byte). Two different keys, a blank or over-long key, or one that
 * is not valid percent-encoding are not usable.
 */
export function usableLicenseKey(url: string): string | null {
  const question = url.indexOf('?');
  if (question === -1) return null;
  const values: string[] = [];
  for (const pair of url.slice(question + 1).split('&')) {
    const eq = pair.indexOf('=');
    const name = decodeFormComponent(eq === -1 ? pair : pair.slice(0, eq));
    if (name !== 'license_key' && name !== 'dlid') continue;
    const value = eq === -1 ? '' : decodeFormComponent(pair.slice(eq + 1));
    if (value === undefined) return null;
    // An empty field counts as absent, as everywhere in the public API.
    if (value !== '') values.push(value);
  }
  const [key] = values;
  if (key === undefined || values.some((value) => value !== key)) return null;
  return NonEmptyShortText.safeParse(key).success ? key : null;
}

/**
 * Spec 4.4 response 3: a path that names no product, even one that is not valid
 * percent-encoding (the router refuses those before any route), gets the no-version shape.
 */
export function unknownProductOnUndecodablePath(
  error: unknown,
  _req: Request,
  res: Response,
  next: NextFunction,
): void {
  if (error instanceof URIError && !res.headersSent) {
    sendData(res, unknownProductUpdate);
    return;
  }
  next(error);
}

/**
 * Spec 4.4: `GET {api_base}/updates/{product_id}`, public; a key only scopes the answer. It
 * answers 200 to anything but the rate limit (429) and a failure of the system (500): a path
 * that names no product (`/updates/0`, `/updates/abc`) gets the no-version shape of a product
 * that does not exist (response 3: "There is no not-found error").
 *
 * `download_url` is built from `publicUrl`: PUBLIC_URL or the gateway's own address, never from
 * the request's Host header, which the client controls.
 */
export const updateCheckRoute: Route<GatewayDeps> = {
  method: 'get',
  path: `${API_BASE}/updates/:product_id`,
  operationId: 'checkUpdate',
  summary:
    'The latest published version of a product. Public. Spec 4.4: only 200, 429 and 500 are ' +
    'answered. A path that names no product gets the no-version shape with download_requires ' +
    'null; a key that cannot be used is ignored, like no key.',
  tag: 'Updates',
  access: 'public',
  request: { path: ProductPath, query: UpdateCheckQuery },
  success: { 200: { description: 'The update information (spec 2.6).', data: UpdateInfo } },
  errors: {
    429: publicErrors.rateLimited('More than 60 update checks in 60 seconds (spec 8).'),
    500: publicErrors.internal,
  },
  handlers: ({ transport, rateLimits, publicUrl }) => [
    rateLimits.updates,
    async (req, res) => {
      const productId = IdText.safeParse(req.params.product_id);
      if (!productId.success) {
        sendData(res, unknownProductUpdate);
        return;
      }
      const info = await transport.call('update-catalog.checkUpdate', {
        product_id: productId.data,
        license_key: usableLicenseKey(req.originalUrl),
        downloads_url: `${publicUrl(req).replace(/\/+$/, '')}${API_BASE}/downloads`,
      });
      sendData(res, info);
    },
  ],
};
