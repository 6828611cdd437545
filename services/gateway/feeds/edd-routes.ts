import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { API_BASE, LicensingError } from '../../../libs/contracts/index.js';
import { defineRoute, type Route } from '../../../libs/http/index.js';
import { clientIp } from '../requests/client-ip.js';
import { publicErrors } from '../requests/form-route.js';
import type { GatewayDeps } from '../gateway-deps.js';
import {
  EddFields,
  EddLicenseAnswer,
  EddVersionAnswer,
  activatedAnswer,
  activationRefusedAnswer,
  checkAnswer,
  deactivatedAnswer,
  deactivationFailedAnswer,
  eddCall,
  eddCaching,
  type EddCall,
  type LicenseState,
} from './edd-answers.js';
import { FeedHeaders } from './feed-inputs.js';
import { sendFeedAnswer } from './feed-route.js';

/** The refusals EDD answers in its own shape (HTTP 200, `success` false). */
const LICENSE_REFUSALS = new Set([
  'LICENSE_INVALID',
  'PRODUCT_MISMATCH',
  'LICENSE_EXPIRED',
  'ACTIVATION_LIMIT_REACHED',
  'ACTIVATION_NOT_FOUND',
]);

function refusedCode(error: unknown): string | null {
  return error instanceof LicensingError && LICENSE_REFUSALS.has(error.code) ? error.code : null;
}

type LicenseCall = Extract<EddCall, { action: 'activate_license' }>;

/** The license's state, for the fields of a refusal's answer: validate names no product. */
function stateOf({ transport }: GatewayDeps, call: EddCall, req: Request): Promise<LicenseState> {
  return transport.call('license.validate', {
    license_key: call.license_key as string,
    identifier: null,
    product_id: null,
    ip: clientIp(req),
  });
}

async function licenseAnswer(deps: GatewayDeps, call: EddCall, req: Request): Promise<unknown> {
  const { transport } = deps;
  const { license_key, product_id, identifier } = call as unknown as LicenseCall;
  try {
    switch (call.action) {
      case 'activate_license':
        return activatedAnswer(
          await transport.call('license.activate', {
            license_key,
            identifier: identifier as string,
            product_id,
            name: null,
            ip: clientIp(req),
          }),
          call,
        );
      case 'check_license':
        return checkAnswer(
          await transport.call('license.validate', {
            license_key,
            identifier,
            product_id,
            ip: clientIp(req),
          }),
          call,
        );
      default:
        return deactivatedAnswer(
          await transport.call('license.deactivate', {
            license_key,
            identifier: identifier as string,
            product_id,
          }),
          call,
        );
    }
  } catch (error) {
    const code = refusedCode(error);
    if (code === null) throw error;
    const state = await stateOf(deps, call, req);
    if (call.action === 'activate_license') {
      return activationRefusedAnswer(code as LicensingError['code'], state, call);
    }
    if (call.action === 'check_license') return checkAnswer({ mismatch: state }, call);
    return deactivationFailedAnswer(state, call);
  }
}

/** What an EDD request is answered from: its fields, and the If-None-Match of a GET. */
interface EddRequest {
  method: 'get' | 'post';
  fields: EddFields;
  ifNoneMatch: string | null;
}

async function answer(
  { method, fields, ifNoneMatch }: EddRequest,
  deps: GatewayDeps,
  req: Request,
  res: Response,
) {
  const call = eddCall(fields);
  const caching = eddCaching(method, call);
  if (caching === 'no-store') res.set('Cache-Control', 'no-store');
  if (call.action !== 'get_version') {
    res.status(200).json(await licenseAnswer(deps, call, req));
    return;
  }
  const feed = await deps.transport.call('update-catalog.feed', {
    format: 'edd',
    product_id: call.product_id,
    license_key: call.license_key,
    identifier: call.identifier,
    author: deps.portal.store_name,
    // The updater downloads `package` as it is: the link carries the key and site.
    key_in_query: true,
    api_url: `${deps.publicUrl(req).replace(/\/+$/, '')}${API_BASE}`,
    if_none_match: ifNoneMatch,
    channel: call.channel,
  });
  if (caching === 'revalidate' && feed.status !== 204) {
    sendFeedAnswer(res, feed);
    return;
  }
  if (feed.status !== 200) throw new Error(`get_version answered ${feed.status}`);
  res.status(200).type(feed.content_type).send(feed.body);
}

/** The update checks' limit for get_version, the license operations' for the others (spec 8). */
function limitOf(deps: GatewayDeps, action: () => string): RequestHandler {
  return (req, res, next) => {
    const limit = action() === 'get_version' ? deps.rateLimits.updates : deps.rateLimits.perIp;
    limit(req, res, next);
  };
}

const common = {
  tag: 'Updater feeds',
  access: 'public' as const,
  summary:
    "EDD Software Licensing's API (edd_action get_version, activate_license, check_license, " +
    'deactivate_license), answered in its shapes, for plugins built on EDD_SL_Plugin_Updater.',
  success: {
    200: {
      description:
        "EDD's answer: a license refusal is `success` false with its `error`, as EDD answers it.",
      json: z.union([EddVersionAnswer, EddLicenseAnswer]),
    },
  },
  errors: {
    400: {
      codes: ['INVALID_REQUEST'],
      description:
        'No or an unknown edd_action, no license (license actions), no url (activate, ' +
        'deactivate), no item_id (get_version), or a url that is not a site.',
    },
    404: { codes: ['NOT_FOUND'], description: 'get_version: no such product.' },
    429: publicErrors.rateLimited(
      'The update checks per-IP limit (get_version), or the license operations per-IP limit.',
    ),
    500: publicErrors.internal,
  },
} satisfies Partial<Route>;

/** `{api_base}/edd`: EDD's API, by GET with a query or POST with a form, as EDD serves both. */
export const eddRoutes: readonly Route<GatewayDeps>[] = [
  defineRoute({
    ...common,
    method: 'get',
    path: `${API_BASE}/edd`,
    operationId: 'eddApiGet',
    query: EddFields,
    headers: FeedHeaders.pick({ 'If-None-Match': true }),
    success: {
      ...common.success,
      304: {
        description:
          'get_version: the copy named by If-None-Match is current (docs/updaters.md, "Caching").',
        empty: true,
      },
    },
    after: (deps, input) => [
      (req, res, next) => limitOf(deps, () => input(res).query.edd_action)(req, res, next),
    ],
    handle: ({ query, headers }, deps, req, res) =>
      answer(
        { method: 'get', fields: query, ifNoneMatch: headers['If-None-Match'] ?? null },
        deps,
        req,
        res,
      ),
  }),
  defineRoute({
    ...common,
    method: 'post',
    path: `${API_BASE}/edd`,
    operationId: 'eddApiPost',
    body: { format: 'form', schema: EddFields },
    errors: {
      ...common.errors,
      408: publicErrors[408],
      413: publicErrors[413],
      415: publicErrors[415],
    },
    after: (deps, input) => [
      (req, res, next) => limitOf(deps, () => input(res).body.edd_action)(req, res, next),
    ],
    handle: ({ body }, deps, req, res) =>
      answer({ method: 'post', fields: body, ifNoneMatch: null }, deps, req, res),
  }),
];
