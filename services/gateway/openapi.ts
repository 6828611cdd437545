import {
  activationTypeSchema,
  dataResponse,
  errorEnvelopeSchema,
  errorResponse,
  licenseStatusSchema,
  timestampOrNullSchema,
} from '../../libs/http/openapi.js';

/**
 * OpenAPI document of the public API (spec section 4), served at GET /openapi.json.
 * test/integration/openapi.test.ts checks it against the routes and real responses.
 */

const errorCodesOfPublicApi = [
  'INVALID_REQUEST',
  'LICENSE_INVALID',
  'PRODUCT_MISMATCH',
  'LICENSE_EXPIRED',
  'ACTIVATION_LIMIT_REACHED',
  'ACTIVATION_NOT_FOUND',
  'ACTIVATION_REQUIRED',
  'DOWNLOAD_NOT_AVAILABLE',
  'RANGE_NOT_SATISFIABLE',
  'RATE_LIMITED',
  'INTERNAL_ERROR',
  'NOT_FOUND',
  'REQUEST_TIMEOUT',
  'PAYLOAD_TOO_LARGE',
  'REQUEST_HEADERS_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
] as const;

const timestampOrNull = timestampOrNullSchema;
const activationType = activationTypeSchema;
const licenseStatus = licenseStatusSchema;
const downloadRequiresSchema = {
  type: ['string', 'null'],
  enum: ['license_key', 'activated_identifier', 'account', null],
  description: 'What the download endpoint needs (spec 2.6); null: the download is public.',
} as const;
const field = (description: string) => ({ type: 'string', maxLength: 255, description });

const formBody = (properties: Record<string, unknown>, required: string[]) => ({
  required: true,
  content: {
    'application/x-www-form-urlencoded': {
      schema: { type: 'object', properties, required },
    },
  },
});

const licenseKeyFields = {
  license_key: field('The license key. Required unless `dlid` is sent.'),
  dlid: field('Alias of `license_key`.'),
};
const productIdField = {
  type: 'string',
  pattern: '^[0-9]+$',
  description: 'Product the call is for; a key that does not cover it gets PRODUCT_MISMATCH.',
};

const dataOf = (ref: string) => dataResponse('Success', { $ref: ref });

/** 429 (spec 8): the answer also carries Retry-After and the draft-8 RateLimit headers. */
const rateLimited = (description: string) => ({
  ...errorResponse(description),
  headers: {
    'Retry-After': {
      description: 'Seconds until a new call may succeed.',
      schema: { type: 'string' },
    },
  },
});
/** 415: a request body in a Content-Encoding (or charset) the gateway cannot read. */
const unsupportedEncoding = errorResponse(
  'UNSUPPORTED_MEDIA_TYPE: the body has a Content-Encoding or charset the gateway cannot read',
);

const header = (description: string, schema: object = { type: 'string' }) => ({
  description,
  schema,
});
/** Headers of a served file (docs/api-decisions.md, Downloads). */
const fileHeaders = {
  'Content-Length': header('Bytes in this response.', { type: 'string', pattern: '^[0-9]+$' }),
  'Content-Disposition': header(
    'attachment; filename="..." (with filename* in UTF-8 for other characters).',
  ),
  ETag: header('The SHA-256 of the whole file in hex, quoted. Send it as If-Range to resume.'),
  'X-Checksum-SHA256': header('The SHA-256 of the whole file, hex.', {
    type: 'string',
    pattern: '^[0-9a-f]{64}$',
  }),
  'Repr-Digest': header('RFC 9530: sha-256=:<base64>: of the whole file.'),
  'Accept-Ranges': header('bytes', { const: 'bytes' }),
};
const fileContent = {
  '*/*': {
    schema: { type: 'string', format: 'binary' },
  },
};

export const publicOpenApi = {
  openapi: '3.1.0',
  info: {
    title: 'Licensing API',
    version: '1.0.0',
    description:
      'License activation, validation and deactivation, update checks and package downloads ' +
      'for client software. POST bodies are form fields; every answer is `{"data": ...}` or ' +
      '`{"error": {"code", "message"}}`, except a served file (200 or 206).',
  },
  paths: {
    '/api/index.php/v1/licensing/licenses/activate': {
      post: {
        operationId: 'activate',
        summary: 'Register an activation (idempotent). Spec 4.1.',
        requestBody: formBody(
          {
            ...licenseKeyFields,
            identifier: field('Website, device, e-mail or instance, per the activation type.'),
            product_id: productIdField,
            name: field('Optional label of the activation.'),
          },
          ['identifier'],
        ),
        responses: {
          '200': dataOf('#/components/schemas/Activation'),
          '400': errorResponse('INVALID_REQUEST'),
          '403': errorResponse(
            'LICENSE_INVALID, PRODUCT_MISMATCH, LICENSE_EXPIRED or ACTIVATION_LIMIT_REACHED ' +
              '(which also carries activation_limit and activations_used)',
          ),
          '408': errorResponse('REQUEST_TIMEOUT: the body did not arrive in time'),
          '413': errorResponse('PAYLOAD_TOO_LARGE'),
          '415': unsupportedEncoding,
          '429': rateLimited(
            'RATE_LIMITED: the per-IP limit of the license operations, or the 20 activate ' +
              'calls per license key per hour (spec 8)',
          ),
          '500': errorResponse('INTERNAL_ERROR'),
        },
      },
    },
    '/api/index.php/v1/licensing/licenses/validate': {
      post: {
        operationId: 'validate',
        summary: 'Check whether a license is usable. Spec 4.2.',
        requestBody: formBody(
          {
            ...licenseKeyFields,
            identifier: field('When sent, reports whether it is activated on the license.'),
            product_id: productIdField,
          },
          [],
        ),
        responses: {
          '200': dataOf('#/components/schemas/Validation'),
          '400': errorResponse('INVALID_REQUEST'),
          '403': errorResponse('PRODUCT_MISMATCH'),
          '408': errorResponse('REQUEST_TIMEOUT: the body did not arrive in time'),
          '413': errorResponse('PAYLOAD_TOO_LARGE'),
          '415': unsupportedEncoding,
          '429': rateLimited('RATE_LIMITED: the per-IP limit of the license operations'),
          '500': errorResponse('INTERNAL_ERROR'),
        },
      },
    },
    '/api/index.php/v1/licensing/licenses/deactivate': {
      post: {
        operationId: 'deactivate',
        summary: 'Remove an activation and free its slot. Spec 4.3.',
        requestBody: formBody(
          {
            ...licenseKeyFields,
            identifier: field('The identifier to remove; normalised as on activate.'),
            product_id: productIdField,
          },
          ['identifier'],
        ),
        responses: {
          '200': dataOf('#/components/schemas/Activation'),
          '400': errorResponse('INVALID_REQUEST'),
          '403': errorResponse('LICENSE_INVALID or PRODUCT_MISMATCH'),
          '404': errorResponse('ACTIVATION_NOT_FOUND'),
          '408': errorResponse('REQUEST_TIMEOUT: the body did not arrive in time'),
          '413': errorResponse('PAYLOAD_TOO_LARGE'),
          '415': unsupportedEncoding,
          '429': rateLimited('RATE_LIMITED: the per-IP limit of the license operations'),
          '500': errorResponse('INTERNAL_ERROR'),
        },
      },
    },
    '/api/index.php/v1/licensing/updates/{product_id}': {
      get: {
        operationId: 'checkUpdate',
        summary:
          'The latest published version of a product. Public. Spec 4.4: only 200, 429 and 500 ' +
          'are answered. A path that names no product gets the no-version shape with ' +
          'download_requires null; a key that cannot be used is ignored, like no key.',
        parameters: [
          {
            name: 'product_id',
            in: 'path',
            required: true,
            schema: { type: 'string', pattern: '^[0-9]+$' },
          },
          {
            name: 'license_key',
            in: 'query',
            required: false,
            schema: { type: 'string', maxLength: 255 },
            description: 'Scopes the answer to the license plan and adds the license state.',
          },
          {
            name: 'dlid',
            in: 'query',
            required: false,
            schema: { type: 'string', maxLength: 255 },
            description: 'Alias of `license_key`.',
          },
        ],
        responses: {
          '200': dataOf('#/components/schemas/UpdateInfo'),
          '429': rateLimited('RATE_LIMITED: more than 60 update checks in 60 seconds'),
          '500': errorResponse('INTERNAL_ERROR'),
        },
      },
    },
    '/api/index.php/v1/licensing/downloads/{product_id}': {
      get: {
        operationId: 'download',
        summary:
          "The package file of the product's latest version, as the Download API Access " +
          'setting allows (spec 4.5). Refusals are JSON errors and are logged with the reason.',
        parameters: [
          {
            name: 'product_id',
            in: 'path',
            required: true,
            schema: { type: 'string', pattern: '^[0-9]+$' },
          },
          {
            name: 'dlid',
            in: 'query',
            required: false,
            schema: { type: 'string', maxLength: 255 },
            description: 'The license key, as CMS updaters send it.',
          },
          {
            name: 'license_key',
            in: 'query',
            required: false,
            schema: { type: 'string', maxLength: 255 },
            description: 'Alias of `dlid`.',
          },
          {
            name: 'identifier',
            in: 'query',
            required: false,
            schema: { type: 'string', maxLength: 255 },
            description:
              'An identifier activated on the license, normalised as in spec 2.4. Required when ' +
              'the product needs an activated identifier; optional otherwise, but one that is ' +
              'sent must be activated.',
          },
          {
            name: 'Range',
            in: 'header',
            required: false,
            schema: { type: 'string' },
            description: 'One byte range (bytes=start-, bytes=start-end, bytes=-suffix).',
          },
          {
            name: 'If-Range',
            in: 'header',
            required: false,
            schema: { type: 'string' },
            description: 'The ETag of the partial file; Range is ignored when it changed.',
          },
        ],
        responses: {
          '200': {
            description: 'The whole file.',
            headers: fileHeaders,
            content: fileContent,
          },
          '206': {
            description: 'The requested byte range of the file.',
            headers: {
              ...fileHeaders,
              'Content-Range': header('bytes start-end/size'),
            },
            content: fileContent,
          },
          '400': errorResponse(
            'INVALID_REQUEST: a bad product id or query string (a repeated or bracketed ' +
              'field, a value over 255 characters, two different keys, a blank key)',
          ),
          '403': errorResponse(
            'LICENSE_INVALID (no key, unknown key, or a license that is not active), ' +
              'PRODUCT_MISMATCH, LICENSE_EXPIRED, ACTIVATION_REQUIRED, or ' +
              'DOWNLOAD_NOT_AVAILABLE (Account only)',
          ),
          '404': errorResponse(
            'NOT_FOUND (no such product, no file for the caller, or its file is missing from ' +
              'storage) or ACTIVATION_NOT_FOUND',
          ),
          '416': {
            ...errorResponse('RANGE_NOT_SATISFIABLE: the range starts after the end of the file'),
            headers: { 'Content-Range': header('bytes */size') },
          },
          '429': rateLimited('RATE_LIMITED: too many downloads from this address'),
          '500': errorResponse('INTERNAL_ERROR'),
        },
      },
    },
    '/health': {
      get: {
        operationId: 'health',
        summary: 'Liveness of the gateway process.',
        responses: {
          '200': {
            description: 'The gateway is running.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['data'],
                  properties: {
                    data: {
                      type: 'object',
                      required: ['status'],
                      properties: { status: { const: 'ok' } },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        summary: 'This document.',
        responses: { '200': { description: 'The OpenAPI document.' } },
      },
    },
  },
  components: {
    schemas: {
      Error: errorEnvelopeSchema(errorCodesOfPublicApi),
      Activation: {
        type: 'object',
        additionalProperties: false,
        required: [
          'status',
          'license_key',
          'product',
          'plan',
          'activation_type',
          'activation_limit',
          'activations_used',
          'expires_at',
          'identifier',
        ],
        properties: {
          status: licenseStatus,
          license_key: { type: 'string' },
          product: { type: 'string' },
          plan: { type: 'string' },
          activation_type: activationType,
          activation_limit: { type: 'integer', minimum: 0, description: '0 means unlimited' },
          activations_used: { type: 'integer', minimum: 0 },
          expires_at: timestampOrNull,
          identifier: { type: 'string', description: 'The normalised identifier stored.' },
        },
      },
      UpdateInfo: {
        oneOf: [
          {
            type: 'object',
            additionalProperties: false,
            required: [
              'update_available',
              'name',
              'version',
              'download_url',
              'download_requires',
              'release_notes',
              'date',
              'file_size',
              'requires_license',
            ],
            properties: {
              update_available: { const: true },
              name: { type: 'string' },
              version: { type: 'string' },
              download_url: { type: ['string', 'null'], format: 'uri' },
              download_requires: downloadRequiresSchema,
              release_notes: { type: ['string', 'null'] },
              date: { type: 'string', format: 'date' },
              file_size: { type: 'integer', minimum: 0 },
              requires_license: { type: 'boolean' },
              license_status: { type: 'string', enum: [...licenseStatus.enum] },
              license_expires_at: timestampOrNull,
              auto_renew: { type: 'boolean' },
              next_payment_at: timestampOrNull,
            },
          },
          {
            type: 'object',
            additionalProperties: false,
            required: ['update_available', 'requires_license', 'download_requires'],
            properties: {
              update_available: { const: false },
              requires_license: { type: 'boolean' },
              download_requires: downloadRequiresSchema,
            },
          },
        ],
      },
      Validation: {
        type: 'object',
        additionalProperties: false,
        required: [
          'valid',
          'status',
          'license_key',
          'product',
          'plan',
          'activation_type',
          'activation_limit',
          'activations_used',
          'expires_at',
          'identifier_activated',
        ],
        properties: {
          valid: { type: 'boolean' },
          status: { type: 'string', enum: [...licenseStatus.enum, 'invalid'] },
          license_key: { type: 'string' },
          product: { type: ['string', 'null'] },
          plan: { type: ['string', 'null'] },
          activation_type: { type: ['string', 'null'], enum: [...activationType.enum, null] },
          activation_limit: { type: 'integer', minimum: 0 },
          activations_used: { type: 'integer', minimum: 0 },
          expires_at: timestampOrNull,
          identifier_activated: { type: 'boolean' },
        },
      },
    },
  },
} as const;
