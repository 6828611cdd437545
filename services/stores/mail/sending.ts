import { z } from 'zod';
import type { MailMessage, Mailer } from './mailer.js';

/**
 * Sending one buyer's e-mail (docs/stores.md: The buyer's e-mail): never to an address that is
 * not one, and again after a failure the mail server may not repeat, a bounded number of times.
 */

export type SendOutcome =
  | { readonly outcome: 'sent'; readonly messageId: string; readonly attempts: number }
  | { readonly outcome: 'failed'; readonly error: string; readonly attempts: number }
  | { readonly outcome: 'skipped'; readonly reason: string };

export interface RetryOptions {
  /** Attempts in all, the first included (at least 1). */
  readonly attempts: number;
  /** The wait after the `failed`-th failed attempt, in milliseconds. */
  readonly backoff: (failed: number) => number;
  /** How to wait: the timer, or a test's own. */
  readonly sleep?: (ms: number) => Promise<void>;
}

const address = z.email();

/** Why a message cannot go to `to`, or null when it can. */
export function recipientProblem(to: string): string | null {
  return address.safeParse(to).success ? null : 'the recipient is not a valid e-mail address';
}

/** Waits doubling from `firstMs`, never longer than `maxMs`. */
export function doublingBackoff(firstMs: number, maxMs: number): (failed: number) => number {
  return (failed) => Math.min(maxMs, firstMs * 2 ** (failed - 1));
}

/**
 * An SMTP reply of 5xx is permanent (RFC 5321 4.2.1): the same message is refused again, so it
 * is not sent again; a 4xx reply, a timeout or a lost connection may pass on a later attempt.
 */
export function isPermanentFailure(error: unknown): boolean {
  const code = (error as { responseCode?: unknown } | null)?.responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

const timer = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function sendWithRetries(
  mailer: Mailer,
  message: MailMessage,
  { attempts, backoff, sleep = timer }: RetryOptions,
): Promise<SendOutcome> {
  const problem = recipientProblem(message.to);
  if (problem !== null) return { outcome: 'skipped', reason: problem };
  let attempt = 0;
  for (;;) {
    attempt += 1;
    try {
      const { messageId } = await mailer.send(message);
      return { outcome: 'sent', messageId, attempts: attempt };
    } catch (error) {
      if (attempt >= attempts || isPermanentFailure(error)) {
        return { outcome: 'failed', error: describe(error), attempts: attempt };
      }
      await sleep(backoff(attempt));
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
