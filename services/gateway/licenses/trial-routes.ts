import { z } from 'zod';
import { API_BASE } from '../../../libs/contracts/api-base.js';
import { IdText, StartedTrial } from '../../../libs/contracts/index.js';
import { defineRoute, sendData, type NoFields, type Route } from '../../../libs/http/index.js';
import { clientIp } from '../requests/client-ip.js';
import { publicErrors } from '../requests/form-route.js';
import type { GatewayDeps } from '../gateway-deps.js';
import { OptionalText, RequiredText } from '../requests/inputs.js';

/** The trial form (docs/api-decisions.md, "Trials"): the product, the identifier, an address. */
export const TrialForm = z
  .object({
    product_id: RequiredText.pipe(IdText).meta({
      description: 'The product to try; one that offers no trial gets PRODUCT_MISMATCH.',
    }),
    identifier: RequiredText.meta({
      description:
        "Website, device, e-mail address or instance, per the trial plan's activation type; " +
        'normalised as in spec 2.4.',
    }),
    email: OptionalText.meta({
      description: "The buyer's e-mail address, kept as the trial license's customer; optional.",
    }),
  })
  .transform((fields) => ({
    product_id: fields.product_id,
    identifier: fields.identifier,
    email: fields.email ?? null,
  }));

/**
 * `POST {api_base}/trials`: a trial license with the identifier activated on it, once per
 * identifier and product, ever. Limited per IP as the license operations are (spec 8).
 */
export const trialRoute: Route<GatewayDeps> = defineRoute<
  GatewayDeps,
  NoFields,
  NoFields,
  NoFields,
  typeof TrialForm
>({
  method: 'post',
  path: `${API_BASE}/trials`,
  operationId: 'startTrial',
  summary:
    "Start a trial: a license on the product's trial plan, expiring after the plan's trial_days, " +
    'with the identifier activated on it. One per identifier and product, ever ' +
    '(docs/api-decisions.md, "Trials").',
  tag: 'Trials',
  access: 'public',
  signed: true,
  body: { format: 'form', schema: TrialForm },
  success: { 201: { description: 'The trial started.', data: StartedTrial } },
  errors: {
    400: {
      codes: ['INVALID_REQUEST'],
      description:
        'A missing product_id or identifier, a value over 255 characters, an identifier that ' +
        'normalises to nothing or is only invisible characters, an e-mail address that is not ' +
        'one, or a malformed form.',
    },
    403: {
      codes: ['PRODUCT_MISMATCH'],
      description: 'The product does not exist, or names no trial plan with trial_days.',
    },
    409: {
      codes: ['TRIAL_ALREADY_USED'],
      description:
        'A trial of this product was already issued for this identifier, however written ' +
        '(compared normalised, without invisible characters, NFKC, every dash one -, and ' +
        'case-insensitively); recorded as a rejected attempt on that trial license.',
    },
    408: publicErrors[408],
    413: publicErrors[413],
    415: publicErrors[415],
    429: publicErrors.rateLimited('The per-IP limit of the license operations (spec 8).'),
    500: publicErrors.internal,
  },
  before: ({ rateLimits }) => [rateLimits.perIp],
  handle: async ({ body }, { transport }, req, res) => {
    const trial = await transport.call('license.startTrial', { ...body, ip: clientIp(req) });
    sendData(res, trial, 201);
  },
});
