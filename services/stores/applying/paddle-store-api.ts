import { z } from 'zod';
import type { StoreMode } from '../../../libs/contracts/stores/store-connections.js';
import type { PaddleApi } from './store-api.js';

/** A call to Paddle's API gives up after this: the applier tries the event again later. */
export const PADDLE_API_TIMEOUT_MS = 10_000;

/** Paddle's own addresses: a live account's, and the sandbox's (a `test` connection's). */
export const PADDLE_API_URLS: Record<StoreMode, string> = {
  live: 'https://api.paddle.com',
  test: 'https://sandbox-api.paddle.com',
};

/** `GET /customers/{customer_id}`'s answer, as far as it is read (Paddle Billing's reference). */
const CustomerAnswer = z.object({
  data: z.looseObject({ email: z.string().min(1), name: z.string().nullish() }),
});

/** Paddle's error answer: `{"error":{"type","code","detail",…},"meta":{"request_id"}}`. */
const ErrorAnswer = z.object({ error: z.looseObject({ code: z.string(), detail: z.string() }) });

/**
 * Paddle Billing's API with the connection's API key (one with the `customer.read` permission),
 * at `url` (PADDLE_API_URL) or else Paddle's own address for the connection's mode. The
 * `@paddle/paddle-node-sdk` is not used: its requests take no timeout and no other address.
 */
export function paddleStoreApi(options: { url?: string; timeoutMs?: number } = {}): PaddleApi {
  const timeoutMs = options.timeoutMs ?? PADDLE_API_TIMEOUT_MS;
  return {
    async paddleCustomer(connection, customerId) {
      const base = options.url ?? PADDLE_API_URLS[connection.mode];
      const url = new URL(`/customers/${encodeURIComponent(customerId)}`, base);
      const what = `Paddle's API, asked for customer ${customerId},`;
      let status: number;
      let body: unknown;
      try {
        // The signal bounds the whole exchange: the connection, the answer and its body.
        const res = await fetch(url, {
          headers: { Authorization: `Bearer ${connection.api_key}`, Accept: 'application/json' },
          redirect: 'error',
          signal: AbortSignal.timeout(timeoutMs),
        });
        status = res.status;
        body = await res.json().catch((error: unknown) => {
          if ((error as Error).name === 'TimeoutError') throw error;
          return null;
        });
      } catch (error) {
        const reason =
          (error as Error).name === 'TimeoutError'
            ? `gave no answer within ${timeoutMs / 1000} s`
            : `could not be reached (${causeOf(error)})`;
        throw new Error(sentence(`${what} ${reason}`), { cause: error });
      }
      if (status !== 200) {
        const said = ErrorAnswer.safeParse(body);
        const detail = said.success ? ` ${said.data.error.code}: ${said.data.error.detail}` : '';
        throw new Error(sentence(`${what} answered ${status}${detail}`));
      }
      const customer = CustomerAnswer.safeParse(body);
      if (!customer.success) throw new Error(`${what} answered no customer with an address.`);
      return { email: customer.data.data.email, name: customer.data.data.name ?? null };
    },
  };
}

/** What a failed fetch says went wrong: its cause's code (ECONNREFUSED, …), else its message. */
function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

/** `text` ending as a sentence does, once: Paddle's details mostly end with a full stop. */
function sentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
