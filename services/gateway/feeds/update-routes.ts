import type { NextFunction, Request, Response } from 'express';
import { UpdateInfo, unknownProductUpdate } from '../../../libs/contracts/index.js';
import {
  defineRoute,
  sendData,
  signAnswers,
  type AnswerSigning,
  type Route,
} from '../../../libs/http/index.js';
import { publicErrors } from '../requests/form-route.js';
import type { GatewayDeps } from '../gateway-deps.js';
import { UpdateCheckPath, UpdateCheckQuery } from '../requests/inputs.js';
import { API_BASE } from '../../../libs/contracts/api-base.js';

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
 * Spec 4.4 response 3: a path that names no product, even one that is not valid
 * percent-encoding (the router refuses those before any route), gets the no-version shape,
 * signed like every answer of the update check.
 */
export function unknownProductOnUndecodablePath(signing: AnswerSigning) {
  const sign = signAnswers(signing);
  return (error: unknown, req: Request, res: Response, next: NextFunction): void => {
    if (!(error instanceof URIError) || res.headersSent) return next(error);
    sign(req, res, (refusal?: unknown) => {
      if (refusal !== undefined) next(refusal);
      else sendData(res, unknownProductUpdate);
    });
  };
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
export const updateCheckRoute: Route<GatewayDeps> = defineRoute({
  method: 'get',
  path: `${API_BASE}/updates/:product_id`,
  operationId: 'checkUpdate',
  summary:
    'The latest published version of a product. Public. Spec 4.4: only 200, 429 and 500 are ' +
    'answered. A path that names no product gets the no-version shape with download_requires ' +
    'null; a key that cannot be used is ignored, like no key.',
  tag: 'Updates',
  access: 'public',
  signed: true,
  params: UpdateCheckPath,
  query: UpdateCheckQuery,
  lenientQuery: true,
  success: { 200: { description: 'The update information (spec 2.6).', data: UpdateInfo } },
  errors: {
    429: publicErrors.rateLimited('More than 60 update checks in 60 seconds (spec 8).'),
    500: publicErrors.internal,
  },
  before: ({ rateLimits }) => [rateLimits.updates],
  handle: async ({ params, query }, { transport, publicUrl }, req, res) => {
    if (params.product_id === null) {
      sendData(res, unknownProductUpdate);
      return;
    }
    const info = await transport.call('update-catalog.checkUpdate', {
      product_id: params.product_id,
      ...query,
      downloads_url: `${publicUrl(req).replace(/\/+$/, '')}${API_BASE}/downloads`,
    });
    sendData(res, info);
  },
});
