import { isIP } from 'node:net';
import type { Request, RequestHandler } from 'express';
import type { z } from 'zod';
import { ActivationResult, LicensingError, ValidationResult } from '../../libs/contracts/index.js';
import { parseWith, readBody, sendData, utf8Body, type Route } from '../../libs/http/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { Form } from '../../libs/http/index.js';
import { ActivateForm, DeactivateForm, ValidateForm } from './inputs.js';
import { API_BASE } from './paths.js';
import { publicErrors, type GatewayDeps } from './deps.js';

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

/** Parses a route's form once, for the per-key rate limit and the handler both. */
function formOf<Input>(schema: z.ZodType<Input>) {
  const parsed = new WeakMap<Request, Input>();
  return {
    parse: ((req, _res, next) => {
      parsed.set(req, parseWith(schema, readForm(req).fields(), 'form'));
      next();
    }) satisfies RequestHandler,
    of(req: Request): Input {
      const input = parsed.get(req);
      if (input === undefined) throw new Error('The form was not parsed.');
      return input;
    },
  };
}

/** The POST operations of the public API share their form handling, limits and errors. */
interface FormOperation<Input extends { license_key: string }> {
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  form: z.ZodType<Input>;
  result: z.ZodType;
  errors: Route['errors'];
  /** Spec 8: the 20 activate calls per license key per hour, beside the per-IP limit. */
  limitedPerKey?: true;
  call(transport: Transport, input: Input, req: Request): Promise<unknown>;
}

export function formRoute<Input extends { license_key: string }>(
  operation: FormOperation<Input>,
): Route<GatewayDeps> {
  const form = formOf(operation.form);
  return {
    method: 'post',
    path: operation.path,
    operationId: operation.operationId,
    summary: operation.summary,
    tag: operation.tag,
    access: 'public',
    request: { body: { contentType: FORM_TYPE, schema: operation.form } },
    success: { 200: { description: 'Success.', data: operation.result } },
    errors: {
      ...operation.errors,
      408: publicErrors[408],
      413: publicErrors[413],
      415: publicErrors[415],
      429: publicErrors.rateLimited(
        operation.limitedPerKey
          ? 'The per-IP limit of the license operations, or the 20 activate calls per license ' +
              'key per hour (spec 8).'
          : 'The per-IP limit of the license operations (spec 8).',
      ),
      500: publicErrors.internal,
    },
    handlers: ({ transport, rateLimits, bodyLimits }) => [
      rateLimits.perIp,
      readBody(bodyLimits),
      form.parse,
      // Spec 8: activate calls per license key, counted once the request is well formed.
      ...(operation.limitedPerKey
        ? [rateLimits.activationsPerKey((req) => form.of(req).license_key)]
        : []),
      async (req, res) => {
        sendData(res, await operation.call(transport, form.of(req), req));
      },
    ],
  };
}

/** Spec 4.1 to 4.3: the license operations, under `{api_base}/licenses/`. */
function licenseRoute<Input extends { license_key: string }>(
  operation: Omit<FormOperation<Input>, 'path' | 'operationId' | 'tag'> & {
    name: 'activate' | 'validate' | 'deactivate';
  },
): Route<GatewayDeps> {
  return formRoute({
    ...operation,
    path: `${API_BASE}/licenses/${operation.name}`,
    operationId: operation.name,
    tag: 'Licenses',
  });
}

export const licenseRoutes: readonly Route<GatewayDeps>[] = [
  licenseRoute({
    name: 'activate',
    summary: 'Register an activation (idempotent). Spec 4.1.',
    form: ActivateForm,
    limitedPerKey: true,
    call: (transport, input, req) =>
      transport.call('license.activate', { ...input, ip: clientIp(req) }),
    result: ActivationResult,
    errors: {
      400: {
        codes: ['INVALID_REQUEST'],
        description:
          'A missing key or identifier, a value over 255 characters, an identifier that ' +
          'normalises to nothing or (domain) is not a website, or a malformed form.',
      },
      403: {
        codes: [
          'LICENSE_INVALID',
          'PRODUCT_MISMATCH',
          'LICENSE_EXPIRED',
          'ACTIVATION_LIMIT_REACHED',
        ],
        description:
          'Refused, in this order (spec 4.1); ACTIVATION_LIMIT_REACHED also carries ' +
          'activation_limit and activations_used.',
      },
    },
  }),
  licenseRoute({
    name: 'validate',
    summary:
      'Whether a license is usable, and an identifier activated on it. Spec 4.2: unknown, ' +
      'inactive and expired keys get 200 with valid false.',
    form: ValidateForm,
    call: (transport, input, req) =>
      transport.call('license.validate', { ...input, ip: clientIp(req) }),
    result: ValidationResult,
    errors: {
      400: {
        codes: ['INVALID_REQUEST'],
        description: 'A missing key, a value over 255 characters, or a malformed form.',
      },
      403: { codes: ['PRODUCT_MISMATCH'], description: 'The key does not cover product_id.' },
    },
  }),
  licenseRoute({
    name: 'deactivate',
    summary:
      'Free the activation of an identifier, whatever the license status. Spec 4.3 (the ' +
      'parameters and answers it leaves open: docs/api-decisions.md).',
    form: DeactivateForm,
    call: (transport, input) => transport.call('license.deactivate', input),
    result: ActivationResult,
    errors: {
      400: {
        codes: ['INVALID_REQUEST'],
        description:
          'A missing key or identifier, a value over 255 characters, or an identifier that ' +
          'normalises to nothing.',
      },
      403: {
        codes: ['LICENSE_INVALID', 'PRODUCT_MISMATCH'],
        description: 'An unknown key, or one that does not cover product_id.',
      },
      404: {
        codes: ['ACTIVATION_NOT_FOUND'],
        description: 'The identifier is not activated on this license (already gone).',
      },
    },
  }),
];
