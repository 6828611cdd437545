import {
  activationTypeSchema,
  countSchema,
  dataResponse,
  downloadAccessSchema,
  errorEnvelopeSchema,
  errorResponse,
  licenseStatusSchema,
  timestampOrNullSchema,
} from '../../libs/http/openapi.js';

/**
 * OpenAPI document of the management (admin) API, served at GET /openapi.json on the management
 * port. test/integration/openapi.test.ts checks it against the routes and real responses.
 */

const errorCodesOfManagementApi = [
  'INVALID_REQUEST',
  'UNAUTHORIZED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'LICENSE_INVALID',
  'LICENSE_EXPIRED',
  'ACTIVATION_LIMIT_REACHED',
  'ACTIVATION_EXISTS',
  'ACTIVATION_NOT_FOUND',
  'ACTIVATION_LIMIT_TOO_LOW',
  'REQUEST_TIMEOUT',
  'PAYLOAD_TOO_LARGE',
  'REQUEST_HEADERS_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'INTERNAL_ERROR',
  'SERVICE_UNAVAILABLE',
] as const;

const MAX_SAFE_INTEGER = 9007199254740991;

const schema = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const id = { type: 'integer', minimum: 1, maximum: MAX_SAFE_INTEGER } as const;
const count = countSchema;
const timestamp = { type: 'string', format: 'date-time' } as const;
const timestampOrNull = timestampOrNullSchema;
const shortText = (description: string) => ({
  type: 'string',
  minLength: 1,
  maxLength: 255,
  description,
});
const activationType = activationTypeSchema;
const licenseStatus = licenseStatusSchema;
const downloadAccess = {
  ...downloadAccessSchema,
  description:
    'Download API Access (spec 2.7): license key, license key + activated identifier, account ' +
    'only, or public.',
} as const;
const activationLimit = {
  type: 'integer',
  minimum: 0,
  maximum: 1000000,
  description: '0 means unlimited.',
} as const;
const bundleItems = {
  type: 'array',
  items: id,
  maxItems: 1000,
  uniqueItems: true,
  description:
    'Products in the bundle: existing products other than this one. Only one level is resolved.',
} as const;

const dataOf = dataResponse;

const location = {
  Location: { description: 'Path of the created resource.', schema: { type: 'string' } },
};

const calendarDate = {
  type: 'string',
  format: 'date',
  pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$',
} as const;
const sha256 = { type: 'string', pattern: '^[0-9a-f]{64}$' } as const;
const planIdOrNull = {
  type: ['integer', 'null'],
  minimum: 1,
  maximum: MAX_SAFE_INTEGER,
  description: 'The plan the file is restricted to; null: every plan.',
} as const;
const queryParameter = (name: string, schema: object, description: string) => ({
  name,
  in: 'query',
  required: false,
  schema,
  description,
});

const jsonBody = (name: string) => ({
  required: true,
  content: { 'application/json': { schema: schema(name) } },
});

const idParameter = {
  name: 'id',
  in: 'path',
  required: true,
  schema: id,
  description: 'A positive integer.',
} as const;
const keyParameter = {
  name: 'key',
  in: 'path',
  required: true,
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  description: 'The license key, URL-encoded.',
} as const;
const identifierParameter = {
  name: 'identifier',
  in: 'path',
  required: true,
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  description: 'The identifier, URL-encoded; normalised as on activate (spec 2.4).',
} as const;

/** Errors every admin route can give. */
const always = {
  '401': errorResponse('UNAUTHORIZED: the admin token is missing or wrong.'),
  '500': errorResponse('INTERNAL_ERROR'),
};
/** Errors of every route that reads a JSON body. */
const bodyErrors = {
  '400': errorResponse(
    'INVALID_REQUEST: malformed JSON, not application/json, or a field that fails validation.',
  ),
  '408': errorResponse('REQUEST_TIMEOUT: the body did not arrive within HTTP_REQUEST_TIMEOUT_MS.'),
  '413': errorResponse('PAYLOAD_TOO_LARGE: the body is over 64 KiB.'),
  '415': errorResponse('UNSUPPORTED_MEDIA_TYPE: a charset or encoding that is not supported.'),
};

export const managementOpenApi = {
  openapi: '3.1.0',
  info: {
    title: 'Licensing management API',
    version: '1.0.0',
    description:
      'Administration of products, plans, licenses, activations, versions, package files and ' +
      'the download log. Every route under ' +
      '/admin/v1 needs `Authorization: Bearer <admin token>`. Bodies are JSON; every answer is ' +
      '`{"data": ...}` or `{"error": {"code", "message"}}`.',
  },
  security: [{ adminToken: [] }],
  paths: {
    '/admin/v1/products': {
      post: {
        operationId: 'createProduct',
        summary: 'Create a product, or a bundle when bundle_items is not empty.',
        requestBody: jsonBody('CreateProduct'),
        responses: {
          '201': dataOf('The product.', schema('Product'), location),
          ...bodyErrors,
          '409': errorResponse('ALREADY_EXISTS: a product with this id exists.'),
          ...always,
        },
      },
      get: {
        operationId: 'listProducts',
        summary: 'All products, by id.',
        responses: { '200': dataOf('The products.', schema('ProductList')), ...always },
      },
    },
    '/admin/v1/products/{id}': {
      parameters: [idParameter],
      get: {
        operationId: 'getProduct',
        summary: 'One product.',
        responses: {
          '200': dataOf('The product.', schema('Product')),
          '400': errorResponse('INVALID_REQUEST: the id is not a positive integer.'),
          '404': errorResponse('NOT_FOUND'),
          ...always,
        },
      },
      patch: {
        operationId: 'updateProduct',
        summary: 'Change some settings of a product. At least one field must be sent.',
        requestBody: jsonBody('UpdateProduct'),
        responses: {
          '200': dataOf('The changed product.', schema('Product')),
          ...bodyErrors,
          '404': errorResponse('NOT_FOUND'),
          ...always,
        },
      },
    },
    '/admin/v1/plans': {
      post: {
        operationId: 'createPlan',
        summary: 'Create a plan (spec 2.1).',
        requestBody: jsonBody('CreatePlan'),
        responses: {
          '201': dataOf('The plan.', schema('Plan'), location),
          ...bodyErrors,
          '409': errorResponse('ALREADY_EXISTS: a plan with this id exists.'),
          ...always,
        },
      },
      get: {
        operationId: 'listPlans',
        summary: 'All plans, by id.',
        responses: { '200': dataOf('The plans.', schema('PlanList')), ...always },
      },
    },
    '/admin/v1/plans/{id}': {
      parameters: [idParameter],
      get: {
        operationId: 'getPlan',
        summary: 'One plan.',
        responses: {
          '200': dataOf('The plan.', schema('Plan')),
          '400': errorResponse('INVALID_REQUEST: the id is not a positive integer.'),
          '404': errorResponse('NOT_FOUND'),
          ...always,
        },
      },
    },
    '/admin/v1/licenses': {
      post: {
        operationId: 'createLicense',
        summary:
          "Issue a license. It copies the plan's activation type and limit; the key is " +
          'generated (128 random bits, 32 hex characters) when not sent.',
        requestBody: jsonBody('CreateLicense'),
        responses: {
          '201': dataOf('The license.', schema('LicenseDetail'), location),
          ...bodyErrors,
          '409': errorResponse('ALREADY_EXISTS: a license with this key exists.'),
          ...always,
        },
      },
    },
    '/admin/v1/licenses/{key}': {
      parameters: [keyParameter],
      get: {
        operationId: 'getLicense',
        summary: 'Every field of spec 2.2, with activations and rejected activation attempts.',
        responses: {
          '200': dataOf('The license.', schema('LicenseDetail')),
          '400': errorResponse('INVALID_REQUEST: the key is over 255 characters or has NUL.'),
          '404': errorResponse('NOT_FOUND'),
          ...always,
        },
      },
      patch: {
        operationId: 'updateLicense',
        summary:
          'Change status, expiry or activation limit. A new limit takes effect at once (spec 3.3).',
        requestBody: jsonBody('UpdateLicense'),
        responses: {
          '200': dataOf('The changed license.', schema('LicenseDetail')),
          ...bodyErrors,
          '404': errorResponse('NOT_FOUND'),
          '409': errorResponse(
            'ACTIVATION_LIMIT_TOO_LOW: the limit is below the activations in use; carries ' +
              'activation_limit and activations_used. Nothing is changed.',
          ),
          ...always,
        },
      },
    },
    '/admin/v1/licenses/{key}/activations': {
      parameters: [keyParameter],
      post: {
        operationId: 'addActivation',
        summary:
          'Add an activation (spec 3.2). The identifier is normalised like an API call; the IP ' +
          'is empty. A refusal is not recorded as a rejected attempt.',
        requestBody: jsonBody('AddActivation'),
        responses: {
          '201': dataOf('The license with the new activation.', schema('LicenseDetail')),
          ...bodyErrors,
          '404': errorResponse('NOT_FOUND: no license with this key.'),
          '409': errorResponse(
            'LICENSE_INVALID (not active), LICENSE_EXPIRED, ACTIVATION_LIMIT_REACHED (carries ' +
              'activation_limit and activations_used) or ACTIVATION_EXISTS.',
          ),
          ...always,
        },
      },
    },
    '/admin/v1/licenses/{key}/activations/{identifier}': {
      parameters: [keyParameter, identifierParameter],
      delete: {
        operationId: 'removeActivation',
        summary: 'Remove an activation and free its slot (spec 3.2). Cannot be undone.',
        responses: {
          '200': dataOf('The license without the activation.', schema('LicenseDetail')),
          '400': errorResponse('INVALID_REQUEST: a key or identifier that fails validation.'),
          '404': errorResponse(
            'NOT_FOUND (no license with this key) or ACTIVATION_NOT_FOUND (the identifier is ' +
              'not activated on it).',
          ),
          ...always,
        },
      },
    },
    '/admin/v1/products/{id}/versions': {
      parameters: [idParameter],
      post: {
        operationId: 'createVersion',
        summary: 'Add a version to a product. Files are uploaded to it afterwards.',
        requestBody: jsonBody('CreateVersion'),
        responses: {
          '201': dataOf('The version.', schema('Version'), location),
          ...bodyErrors,
          '404': errorResponse('NOT_FOUND: no product with this id.'),
          ...always,
        },
      },
      get: {
        operationId: 'listVersions',
        summary: "A product's versions with their files, most recently uploaded first.",
        responses: {
          '200': dataOf('The versions.', schema('VersionList')),
          '400': errorResponse('INVALID_REQUEST: the id is not a positive integer.'),
          '404': errorResponse('NOT_FOUND: no product with this id.'),
          ...always,
        },
      },
    },
    '/admin/v1/versions/{id}': {
      parameters: [idParameter],
      get: {
        operationId: 'getVersion',
        summary: 'One version with its files.',
        responses: {
          '200': dataOf('The version.', schema('Version')),
          '400': errorResponse('INVALID_REQUEST: the id is not a positive integer.'),
          '404': errorResponse('NOT_FOUND'),
          ...always,
        },
      },
      patch: {
        operationId: 'updateVersion',
        summary: 'Change a version (publish or unpublish it). At least one field must be sent.',
        requestBody: jsonBody('UpdateVersion'),
        responses: {
          '200': dataOf('The changed version.', schema('Version')),
          ...bodyErrors,
          '404': errorResponse('NOT_FOUND'),
          ...always,
        },
      },
    },
    '/admin/v1/versions/{id}/files': {
      parameters: [idParameter],
      post: {
        operationId: 'uploadFile',
        summary:
          'Upload a package file to a version. The file is streamed to object storage; the ' +
          'answer carries its size and SHA-256. The fields may come before or after the file.',
        requestBody: {
          required: true,
          content: { 'multipart/form-data': { schema: schema('FileUpload') } },
        },
        responses: {
          '201': dataOf('The file.', schema('PackageFile'), location),
          '400': errorResponse(
            'INVALID_REQUEST: not multipart/form-data, no file part named "file", an empty ' +
              'file, an unknown field or plan, or a field that fails validation.',
          ),
          '404': errorResponse('NOT_FOUND: no version with this id.'),
          '413': errorResponse('PAYLOAD_TOO_LARGE: the file is over MAX_UPLOAD_BYTES.'),
          ...always,
        },
      },
    },
    '/admin/v1/files/{id}': {
      parameters: [idParameter],
      patch: {
        operationId: 'updateFile',
        summary: 'Restrict a file to a plan (or to none), or tick Include in auto-updates.',
        requestBody: jsonBody('UpdateFile'),
        responses: {
          '200': dataOf('The changed file.', schema('PackageFile')),
          ...bodyErrors,
          '404': errorResponse('NOT_FOUND'),
          ...always,
        },
      },
      delete: {
        operationId: 'deleteFile',
        summary: 'Remove a file and its stored object. Cannot be undone.',
        responses: {
          '200': dataOf('The removed file.', schema('PackageFile')),
          '400': errorResponse('INVALID_REQUEST: the id is not a positive integer.'),
          '404': errorResponse('NOT_FOUND'),
          ...always,
        },
      },
    },
    '/admin/v1/download-log': {
      get: {
        operationId: 'listDownloadLog',
        summary:
          'The download log (spec 4.5): served and refused downloads, newest first. ' +
          'refused=true lists the Refused Downloads with the error code as the reason.',
        parameters: [
          queryParameter(
            'product_id',
            { type: 'string', pattern: '^[1-9][0-9]*$' },
            'Only this product.',
          ),
          queryParameter(
            'refused',
            { type: 'string', enum: ['true', 'false', '1', '0'] },
            'true: refused downloads only; false: served ones only.',
          ),
          queryParameter('page', { type: 'string', pattern: '^[1-9][0-9]*$' }, 'From 1.'),
          queryParameter(
            'per_page',
            { type: 'string', pattern: '^[1-9][0-9]*$' },
            'Entries per page, at most 500 (default 50).',
          ),
        ],
        responses: {
          '200': dataOf('One page of the log.', schema('DownloadLogPage')),
          '400': errorResponse('INVALID_REQUEST: an unknown, repeated or malformed parameter.'),
          ...always,
        },
      },
    },
    '/admin/v1/health': {
      get: {
        operationId: 'health',
        summary: 'Pings every service behind the management API, each with a 2 s timeout.',
        responses: {
          '200': dataOf('Every service answered.', schema('HealthReport')),
          '503': errorResponse('SERVICE_UNAVAILABLE: the message names the silent services.'),
          ...always,
        },
      },
    },
    '/health': {
      get: {
        operationId: 'liveness',
        summary: 'Liveness of the management process. No token needed.',
        security: [],
        responses: {
          '200': dataOf('The process is running.', {
            type: 'object',
            additionalProperties: false,
            required: ['status'],
            properties: { status: { const: 'ok' } },
          }),
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openapi',
        summary: 'This document. No token needed.',
        security: [],
        responses: { '200': { description: 'The OpenAPI document.' } },
      },
    },
  },
  components: {
    securitySchemes: {
      adminToken: {
        type: 'http',
        scheme: 'bearer',
        description: 'One of the tokens configured in ADMIN_TOKENS.',
      },
    },
    schemas: {
      Error: errorEnvelopeSchema(errorCodesOfManagementApi),
      Product: {
        type: 'object',
        additionalProperties: false,
        required: [
          'id',
          'title',
          'requires_license',
          'download_access',
          'bundle_items',
          'created_at',
          'updated_at',
        ],
        properties: {
          id,
          title: { type: 'string' },
          requires_license: { type: 'boolean' },
          download_access: downloadAccess,
          bundle_items: { type: 'array', items: id },
          created_at: timestamp,
          updated_at: timestamp,
        },
      },
      ProductList: {
        type: 'object',
        additionalProperties: false,
        required: ['products'],
        properties: { products: { type: 'array', items: schema('Product') } },
      },
      Plan: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'activation_type', 'activation_limit', 'created_at'],
        properties: {
          id,
          name: { type: 'string' },
          activation_type: activationType,
          activation_limit: { ...count, description: '0 means unlimited.' },
          created_at: timestamp,
        },
      },
      PlanList: {
        type: 'object',
        additionalProperties: false,
        required: ['plans'],
        properties: { plans: { type: 'array', items: schema('Plan') } },
      },
      ActivationRecord: {
        type: 'object',
        additionalProperties: false,
        required: ['identifier', 'name', 'ip', 'activated_at'],
        properties: {
          identifier: { type: 'string', description: 'Normalised identifier (spec 2.3, 2.4).' },
          name: { type: ['string', 'null'] },
          ip: { type: 'string', description: 'Empty for activations added in admin.' },
          activated_at: timestamp,
        },
      },
      RejectedAttempt: {
        type: 'object',
        additionalProperties: false,
        required: ['identifier', 'tries', 'last_attempt_at'],
        properties: {
          identifier: { type: 'string' },
          tries: { type: 'integer', minimum: 1 },
          last_attempt_at: timestamp,
        },
      },
      LicenseDetail: {
        type: 'object',
        additionalProperties: false,
        required: [
          'license_key',
          'status',
          'product_id',
          'plan_id',
          'product',
          'plan',
          'activation_type',
          'activation_limit',
          'activations_used',
          'expires_at',
          'auto_renew',
          'next_payment_at',
          'last_check_at',
          'last_check_ip',
          'check_count',
          'created_at',
          'activations',
          'rejected_attempts',
        ],
        properties: {
          license_key: { type: 'string' },
          status: {
            ...licenseStatus,
            description: 'An active license past its expiry date shows `expired`.',
          },
          product_id: id,
          plan_id: id,
          product: { type: ['string', 'null'], description: 'Product (or bundle) title.' },
          plan: { type: ['string', 'null'], description: 'Plan name.' },
          activation_type: activationType,
          activation_limit: { ...count, description: '0 means unlimited.' },
          activations_used: count,
          expires_at: timestampOrNull,
          auto_renew: { type: 'boolean' },
          next_payment_at: timestampOrNull,
          last_check_at: timestampOrNull,
          last_check_ip: { type: ['string', 'null'] },
          check_count: count,
          created_at: timestamp,
          activations: { type: 'array', items: schema('ActivationRecord') },
          rejected_attempts: {
            type: 'array',
            items: schema('RejectedAttempt'),
            description: 'Most recent first.',
          },
        },
      },
      PackageFile: {
        type: 'object',
        additionalProperties: false,
        required: [
          'id',
          'version_id',
          'product_id',
          'filename',
          'plan_id',
          'include_in_updates',
          'size',
          'sha256',
          'content_type',
          'object_key',
          'uploaded_at',
        ],
        properties: {
          id,
          version_id: id,
          product_id: id,
          filename: { type: 'string', description: 'The name clients save the file under.' },
          plan_id: planIdOrNull,
          include_in_updates: {
            type: 'boolean',
            description: 'Include in auto-updates (spec 2.7): only such files are offered.',
          },
          size: { ...count, description: 'Bytes.' },
          sha256,
          content_type: { type: 'string' },
          object_key: { type: 'string', description: 'Where the download service stores it.' },
          uploaded_at: timestamp,
        },
      },
      Version: {
        type: 'object',
        additionalProperties: false,
        required: [
          'id',
          'product_id',
          'version',
          'release_notes',
          'release_date',
          'published',
          'created_at',
          'uploaded_at',
          'files',
        ],
        properties: {
          id,
          product_id: id,
          version: { type: 'string' },
          release_notes: { type: ['string', 'null'] },
          release_date: { ...calendarDate, type: ['string', 'null'] },
          published: { type: 'boolean' },
          created_at: { ...timestamp, description: 'When the version was created.' },
          uploaded_at: {
            ...timestamp,
            type: ['string', 'null'],
            description:
              'When its newest file was uploaded; null without files. The most recently ' +
              'uploaded published version is the latest (spec 4.4 rule 3), counting for each ' +
              'caller the files it may get.',
          },
          files: { type: 'array', items: schema('PackageFile') },
        },
      },
      VersionList: {
        type: 'object',
        additionalProperties: false,
        required: ['versions'],
        properties: { versions: { type: 'array', items: schema('Version') } },
      },
      CreateVersion: {
        type: 'object',
        additionalProperties: false,
        required: ['version'],
        properties: {
          version: { ...shortText('Version string as shown to clients.'), maxLength: 64 },
          release_notes: { type: ['string', 'null'], maxLength: 65535, default: null },
          release_date: {
            ...calendarDate,
            type: ['string', 'null'],
            default: null,
            description: 'Y-m-d; the update check shows the upload date when null.',
          },
          published: { type: 'boolean', default: true },
        },
      },
      UpdateVersion: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: {
          version: { ...shortText('Version string as shown to clients.'), maxLength: 64 },
          release_notes: { type: ['string', 'null'], maxLength: 65535 },
          release_date: { ...calendarDate, type: ['string', 'null'] },
          published: { type: 'boolean' },
        },
      },
      FileUpload: {
        type: 'object',
        required: ['file'],
        properties: {
          file: { type: 'string', format: 'binary', description: 'The package, with its name.' },
          plan_id: {
            type: 'string',
            pattern: '^([1-9][0-9]*)?$',
            description: 'An existing plan to restrict the file to; empty or absent: every plan.',
          },
          include_in_updates: {
            type: 'string',
            enum: ['true', 'false', '1', '0'],
            default: 'true',
          },
        },
      },
      UpdateFile: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: {
          plan_id: { ...planIdOrNull, description: 'An existing plan, or null for every plan.' },
          include_in_updates: { type: 'boolean' },
        },
      },
      DownloadLogEntry: {
        type: 'object',
        additionalProperties: false,
        required: [
          'id',
          'at',
          'product_id',
          'license_key',
          'identifier',
          'ip',
          'outcome',
          'reason',
          'file_id',
          'version',
        ],
        properties: {
          id: { type: 'string' },
          at: timestamp,
          product_id: {
            ...id,
            type: ['integer', 'null'],
            description: 'Null for a refused request whose path named no valid product id.',
          },
          license_key: {
            type: ['string', 'null'],
            maxLength: 255,
            description: 'As sent (dlid or license_key); a longer value is cut to 255 characters.',
          },
          identifier: {
            type: ['string', 'null'],
            maxLength: 255,
            description: 'As sent; a longer value is cut to 255 characters.',
          },
          ip: { type: 'string' },
          outcome: { type: 'string', enum: ['served', 'refused'] },
          reason: {
            type: ['string', 'null'],
            description: 'For a refusal: the error code the client got.',
          },
          file_id: { ...id, type: ['integer', 'null'] },
          version: { type: ['string', 'null'] },
        },
      },
      DownloadLogPage: {
        type: 'object',
        additionalProperties: false,
        required: ['entries', 'page', 'per_page', 'total'],
        properties: {
          entries: { type: 'array', items: schema('DownloadLogEntry') },
          page: { type: 'integer', minimum: 1 },
          per_page: { type: 'integer', minimum: 1, maximum: 500 },
          total: count,
        },
      },
      ServiceHealth: {
        type: 'object',
        additionalProperties: false,
        required: ['status', 'uptime_seconds'],
        properties: { status: { const: 'ok' }, uptime_seconds: { type: 'number', minimum: 0 } },
      },
      HealthReport: {
        type: 'object',
        additionalProperties: false,
        required: ['status', 'services'],
        properties: {
          status: { const: 'ok' },
          services: {
            type: 'object',
            additionalProperties: false,
            required: ['license', 'update-catalog', 'download'],
            properties: {
              license: schema('ServiceHealth'),
              'update-catalog': schema('ServiceHealth'),
              download: schema('ServiceHealth'),
            },
          },
        },
      },
      CreateProduct: {
        type: 'object',
        additionalProperties: false,
        required: ['title'],
        properties: {
          id: { ...id, description: 'Chosen id; generated when absent.' },
          title: shortText('Product title.'),
          requires_license: { type: 'boolean', default: true },
          download_access: { ...downloadAccess, default: 'license_key' },
          bundle_items: { ...bundleItems, default: [] },
        },
      },
      UpdateProduct: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: {
          title: shortText('Product title.'),
          requires_license: { type: 'boolean' },
          download_access: downloadAccess,
          bundle_items: bundleItems,
        },
      },
      CreatePlan: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'activation_type', 'activation_limit'],
        properties: {
          id: { ...id, description: 'Chosen id; generated when absent.' },
          name: shortText('Plan name.'),
          activation_type: activationType,
          activation_limit: activationLimit,
        },
      },
      CreateLicense: {
        type: 'object',
        additionalProperties: false,
        required: ['product_id', 'plan_id'],
        properties: {
          license_key: {
            ...shortText('Chosen key, without surrounding white space; generated when absent.'),
          },
          product_id: id,
          plan_id: id,
          status: { ...licenseStatus, default: 'active' },
          expires_at: { ...timestampOrNull, default: null },
          auto_renew: { type: 'boolean', default: false },
          next_payment_at: { ...timestampOrNull, default: null },
        },
      },
      UpdateLicense: {
        type: 'object',
        additionalProperties: false,
        minProperties: 1,
        properties: {
          status: licenseStatus,
          expires_at: timestampOrNull,
          activation_limit: {
            ...activationLimit,
            description:
              '0 means unlimited. A limit below the activations in use is refused (409).',
          },
        },
      },
      AddActivation: {
        type: 'object',
        additionalProperties: false,
        required: ['identifier'],
        properties: {
          identifier: shortText('Website, device, e-mail or instance, per the activation type.'),
          name: {
            type: ['string', 'null'],
            maxLength: 255,
            default: null,
            description: 'Optional label.',
          },
        },
      },
    },
  },
} as const;
