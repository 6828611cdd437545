import { activationTypes, downloadAccessValues, licenseStatuses } from '../contracts/index.js';

/**
 * Building blocks shared by the OpenAPI documents of the gateway and the management API: the
 * spec's envelopes and the enums of the contracts, so both documents describe them alike.
 */

export const activationTypeSchema = { type: 'string', enum: [...activationTypes] } as const;
export const licenseStatusSchema = { type: 'string', enum: [...licenseStatuses] } as const;
export const downloadAccessSchema = { type: 'string', enum: [...downloadAccessValues] } as const;
export const timestampOrNullSchema = { type: ['string', 'null'], format: 'date-time' } as const;
export const countSchema = { type: 'integer', minimum: 0 } as const;

/** Spec 7: `{"error": {"code", "message", ...}}`, with the codes an API is known to answer. */
export function errorEnvelopeSchema(knownCodes: readonly string[]) {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: {
            type: 'string',
            description: `Known codes: ${knownCodes.join(', ')}. Later versions may add codes.`,
          },
          message: { type: 'string' },
          activation_limit: countSchema,
          activations_used: countSchema,
        },
      },
    },
  } as const;
}

/** A response whose body is the Error schema of the document. */
export function errorResponse(description: string) {
  return {
    description,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
}

/** Spec 1: a success body is an object with one key, `data`. */
export function dataResponse(description: string, data: object, headers?: object) {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: {
      'application/json': {
        schema: {
          type: 'object',
          additionalProperties: false,
          required: ['data'],
          properties: { data },
        },
      },
    },
  };
}
