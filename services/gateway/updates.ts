import express, { type Request, type Router } from 'express';
import { sendData } from '../../libs/http/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { Form, parseProductId } from './form.js';
import { API_BASE } from './paths.js';
import type { RateLimits } from './rate-limits.js';

/**
 * The public address clients reach the gateway at: PUBLIC_URL, or else the address of this
 * request (scheme and host as the trusted proxies report them).
 */
export function publicBaseUrl(req: Request, publicUrl: string | undefined): string {
  return (publicUrl ?? `${req.protocol}://${req.get('host') ?? 'localhost'}`).replace(/\/+$/, '');
}

/** Spec 4.4: `GET {api_base}/updates/{product_id}`, public; a key only scopes the answer. */
export function updateRoutes(
  transport: Transport,
  limits: RateLimits,
  publicUrl: string | undefined,
): Router {
  const router = express.Router();
  router.get('/:product_id', limits.updates, async (req, res) => {
    const param = req.params.product_id;
    const productId = parseProductId(typeof param === 'string' ? param : '');
    const query = Form.fromUrl(req.originalUrl);
    const info = await transport.call('update-catalog.checkUpdate', {
      product_id: productId,
      license_key: query.optionalLicenseKey() ?? null,
      downloads_url: `${publicBaseUrl(req, publicUrl)}${API_BASE}/downloads`,
    });
    sendData(res, info);
  });
  return router;
}
