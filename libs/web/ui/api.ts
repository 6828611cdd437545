/**
 * Calls of the web pages to the APIs of the page's own origin, and their errors in words: the
 * spec's envelopes (`{"data": ...}` or `{"error": {"code", "message"}}`) read once, here.
 */

/** Words for the codes a person may meet; the server's own message follows them. */
const MEANINGS: Record<string, string> = {
  INVALID_REQUEST: 'The request was not accepted',
  UNAUTHORIZED: 'The admin token was not accepted',
  NOT_FOUND: 'Not found',
  LICENSE_INVALID: 'This license key is not valid, or the license is not active',
  LICENSE_EXPIRED: 'The license has expired',
  PRODUCT_MISMATCH: 'The license does not cover this product',
  ACTIVATION_LIMIT_REACHED: 'Every activation slot of the license is in use',
  ACTIVATION_LIMIT_TOO_LOW: 'The limit would be below the activations in use',
  ACTIVATION_EXISTS: 'This identifier is already activated',
  ACTIVATION_NOT_FOUND: 'This identifier is not activated',
  ALREADY_EXISTS: 'That already exists',
  PAYLOAD_TOO_LARGE: 'The file or request is too large',
  RATE_LIMITED: 'Too many requests: wait a moment and try again',
  SERVICE_UNAVAILABLE: 'A service is not answering',
  INTERNAL_ERROR: 'Something failed on the server: try again',
};

/** The code's meaning, then the server's message, unless the meaning says it already. */
function inWords(code: string, serverMessage: string): string {
  const meaning = MEANINGS[code] ?? 'The request failed';
  const said = serverMessage.trim().replace(/\.$/, '').toLowerCase();
  return said === '' || meaning.toLowerCase().includes(said)
    ? `${meaning}.`
    : `${meaning}. ${serverMessage.trim()}`;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly serverMessage: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(inWords(code, serverMessage));
    this.name = 'ApiError';
  }
}

/** The error a failed answer carries, or one that says the answer could not be read. */
export function errorOf(status: number, body: unknown): ApiError {
  const error = (body as { error?: Record<string, unknown> } | null)?.error;
  if (error && typeof error.code === 'string' && typeof error.message === 'string') {
    const { code, message, ...details } = error;
    return new ApiError(status, code, message, details);
  }
  return new ApiError(status, 'INTERNAL_ERROR', `The server answered HTTP ${status}.`);
}

/** The `data` of a successful answer, or the ApiError of a failed one. */
export async function readAnswer<T>(response: Response): Promise<T> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new ApiError(response.status, 'INTERNAL_ERROR', 'The answer could not be read.');
  }
  if (!response.ok) throw errorOf(response.status, body);
  return (body as { data: T }).data;
}

/** A fetch that reports a network failure as an error in words. */
export async function send(input: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(input, init);
  } catch {
    throw new ApiError(0, 'CONNECTION', 'The server could not be reached.');
  }
}
