import { LicensingError } from '../../../libs/contracts/index.js';
import type { ErrorAnswer, Route } from '../../../libs/http/index.js';

/** Error answers the admin routes share. */
const always = {
  401: { codes: ['UNAUTHORIZED'], description: 'The admin token is missing or wrong.' },
  500: { codes: ['INTERNAL_ERROR'], description: 'An unexpected server failure.' },
} satisfies Record<number, ErrorAnswer>;

const body = {
  400: {
    codes: ['INVALID_REQUEST'],
    description:
      'Malformed JSON, not application/json, not UTF-8, or a field that fails validation ' +
      '(the message names it).',
  },
  408: {
    codes: ['REQUEST_TIMEOUT'],
    description: 'The body did not arrive within HTTP_REQUEST_TIMEOUT_MS.',
  },
  413: { codes: ['PAYLOAD_TOO_LARGE'], description: 'The body is over 64 KiB.' },
  415: {
    codes: ['UNSUPPORTED_MEDIA_TYPE'],
    description: 'A charset other than UTF-8, or a content encoding that is not supported.',
  },
} satisfies Record<number, ErrorAnswer>;

export const adminErrors = {
  400: (description: string): ErrorAnswer => ({ codes: ['INVALID_REQUEST'], description }),
  404: (description = 'There is no such record.'): ErrorAnswer => ({
    codes: ['NOT_FOUND'],
    description,
  }),
  /** Every route under /admin/v1. */
  always,
  /** Every route that reads a JSON body. */
  body,
};

/** The errors of a route whose only input is an id in the path. */
export const byIdErrors = (notFound?: string): Route['errors'] => ({
  400: adminErrors[400]('The id is not a positive integer.'),
  404: adminErrors[404](notFound),
});

/**
 * Admin Add is refused for the reasons activate is (spec 3.2: not active, expired, full), and a
 * renewal for a license that cannot be renewed; to an admin, each is a conflict with the
 * license's state: 409, with the spec's code.
 */
export async function refusalAsConflict<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (error) {
    if (!(error instanceof LicensingError) || error.status !== 403) throw error;
    throw new LicensingError(error.code, error.message, { status: 409, details: error.details });
  }
}
