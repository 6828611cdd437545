import { isIP } from 'node:net';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { LicensingError } from '../../libs/contracts/index.js';
import { readBody, sendData, utf8Body, type BodyLimits } from '../../libs/http/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { Form } from './form.js';
import type { RateLimits } from './rate-limits.js';

const FORM_TYPE = 'application/x-www-form-urlencoded';

/** The form of a POST request; an absent body is an empty form, any other type is refused. */
function readForm(req: Request): Form {
  const text = utf8Body(req);
  if (text.length > 0 && !req.is(FORM_TYPE)) {
    throw new LicensingError('INVALID_REQUEST', `The request body must be ${FORM_TYPE}.`);
  }
  return Form.parse(text);
}

/**
 * The client's address as shown in admin: IPv4 without the IPv6-mapped prefix. With TRUST_PROXY,
 * `req.ip` comes from X-Forwarded-For, which a client can fill with anything; only an IP address
 * is taken from it, otherwise the connection's own address is recorded.
 */
export function clientIp(req: Request): string {
  const address = (ip: string | undefined) => {
    if (ip === undefined) return undefined;
    // A link-local address may carry a zone (`fe80::1%eth0`), which names our interface.
    const [withoutZone = ''] = ip.split('%', 1);
    const plain = withoutZone.startsWith('::ffff:') ? withoutZone.slice(7) : withoutZone;
    return isIP(plain) !== 0 ? plain : undefined;
  };
  return address(req.ip) ?? address(req.socket.remoteAddress) ?? '';
}

/** Parses the form once; the handlers and the per-key rate limit read it from here. */
const parseForm: RequestHandler = (req, res, next) => {
  res.locals.form = readForm(req);
  next();
};

function formOf(res: Response): Form {
  const form: unknown = res.locals.form;
  if (!(form instanceof Form)) throw new Error('parseForm did not run');
  return form;
}

/** The license operations of spec 4.1 to 4.3 under `{api_base}/licenses`. */
export function licenseRoutes(
  transport: Transport,
  limits: RateLimits,
  bodyLimits: BodyLimits,
): Router {
  const router = express.Router();
  router.use(limits.perIp, readBody(bodyLimits), parseForm);

  router.post(
    '/activate',
    // Spec 8: activate calls per license key, counted once the key is known to be well formed.
    (_req, res, next) => {
      formOf(res).licenseKey();
      next();
    },
    limits.activationsPerKey((res) => formOf(res).licenseKey()),
    async (req, res) => {
      const form = formOf(res);
      const request = {
        license_key: form.licenseKey(),
        identifier: form.required('identifier'),
        product_id: form.productId(),
        name: form.optional('name') ?? null,
        ip: clientIp(req),
      };
      sendData(res, await transport.call('license.activate', request));
    },
  );

  router.post('/validate', async (req, res) => {
    const form = formOf(res);
    const request = {
      license_key: form.licenseKey(),
      // An identifier sent empty is still sent: it is not activated (rule 3: no side effects).
      identifier: form.sent('identifier') ?? null,
      product_id: form.productId(),
      ip: clientIp(req),
    };
    sendData(res, await transport.call('license.validate', request));
  });

  router.post('/deactivate', async (_req, res) => {
    const form = formOf(res);
    const request = {
      license_key: form.licenseKey(),
      identifier: form.required('identifier'),
      product_id: form.productId(),
    };
    sendData(res, await transport.call('license.deactivate', request));
  });

  return router;
}
