/**
 * Calls of the web pages to the APIs of the page's own origin, and their errors in words: the
 * spec's envelopes (`{"data": ...}` or `{"error": {"code", "message"}}`) read once, here.
 */
import { errorMeaning } from './words.js';

/** The code's meaning, then the server's message, unless the meaning says it already. */
function inWords(code: string, serverMessage: string): string {
  const meaning = errorMeaning(code);
  const said = serverMessage.trim().replace(/\.$/, '').toLowerCase();
  return said === '' || meaning.toLowerCase().includes(said)
    ? `${meaning}.`
    : `${meaning}. ${serverMessage.trim()}`;
}

/**
 * A refusal or failure, said by default as the code's meaning and the server's message; a page
 * that knows better what it means to its reader says so in `words` instead.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly serverMessage: string,
    readonly details: Record<string, unknown> = {},
    words: string = inWords(code, serverMessage),
  ) {
    super(words);
    this.name = 'ApiError';
  }

  /** The same refusal, said in `words`. */
  saying(words: string): ApiError {
    return new ApiError(this.status, this.code, this.serverMessage, this.details, words);
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
