import type { MailMessage, Mailer } from '../../../services/stores/mail/mailer.js';
import {
  doublingBackoff,
  recipientProblem,
  sendWithRetries,
} from '../../../services/stores/mail/sending.js';

/** docs/stores.md: The buyer's e-mail (sending). */

const message: MailMessage = {
  to: 'ann@buyer.example',
  subject: 'Your license key for Gallery Pro (Plugin Shop)',
  text: 'License key: ABCD\n',
  html: '<p>License key: ABCD</p>',
};

/** A mailer failing with each of `failures` in turn, then sending; it counts its calls. */
function scriptedMailer(failures: unknown[]): Mailer & { calls: number } {
  const mailer = {
    calls: 0,
    send: async () => {
      mailer.calls += 1;
      const failure = failures[mailer.calls - 1];
      if (failure !== undefined) throw failure;
      return { messageId: `<m${mailer.calls}@shop.example>` };
    },
  };
  return mailer;
}

/** Records each wait instead of waiting. */
function recordedSleep() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

describe('a message goes only to a valid address', () => {
  test.each([
    '',
    'ann',
    'ann@',
    '@buyer.example',
    'ann buyer@buyer.example',
    'a@b\r\nBcc: c@d.example',
  ])('%j is not sent, and the outcome says why', async (to) => {
    const mailer = scriptedMailer([]);
    const outcome = await sendWithRetries(
      mailer,
      { ...message, to },
      { attempts: 3, backoff: () => 0 },
    );
    expect(outcome).toEqual({
      outcome: 'skipped',
      reason: 'the recipient is not a valid e-mail address',
    });
    expect(mailer.calls).toBe(0);
  });

  test('a valid address has no problem', () => {
    expect(recipientProblem('ann.buyer+shop@buyer.example')).toBeNull();
  });
});

describe('a failed attempt is retried, a bounded number of times', () => {
  test('sent at the first attempt: one call, no wait', async () => {
    const mailer = scriptedMailer([]);
    const { waits, sleep } = recordedSleep();
    const outcome = await sendWithRetries(mailer, message, {
      attempts: 3,
      backoff: () => 10,
      sleep,
    });
    expect(outcome).toEqual({ outcome: 'sent', messageId: '<m1@shop.example>', attempts: 1 });
    expect(waits).toEqual([]);
  });

  test('sent at the third attempt, after the backoff of each failed one', async () => {
    const mailer = scriptedMailer([new Error('connection lost'), new Error('421 busy')]);
    const { waits, sleep } = recordedSleep();
    const outcome = await sendWithRetries(mailer, message, {
      attempts: 5,
      backoff: doublingBackoff(1000, 60_000),
      sleep,
    });
    expect(outcome).toEqual({ outcome: 'sent', messageId: '<m3@shop.example>', attempts: 3 });
    expect(waits).toEqual([1000, 2000]);
  });

  test('failing every attempt: failed with the last error, after exactly `attempts` calls', async () => {
    const mailer = scriptedMailer([1, 2, 3].map((n) => new Error(`timeout ${n}`)));
    const { waits, sleep } = recordedSleep();
    const outcome = await sendWithRetries(mailer, message, {
      attempts: 3,
      backoff: () => 5,
      sleep,
    });
    expect(outcome).toEqual({ outcome: 'failed', error: 'timeout 3', attempts: 3 });
    expect(mailer.calls).toBe(3);
    expect(waits).toEqual([5, 5]);
  });

  test('a permanent refusal (SMTP 5xx) is not sent again', async () => {
    const refusal = Object.assign(new Error('550 mailbox unavailable'), { responseCode: 550 });
    const mailer = scriptedMailer([refusal]);
    const outcome = await sendWithRetries(mailer, message, {
      attempts: 5,
      backoff: () => 0,
      sleep: async () => {},
    });
    expect(outcome).toEqual({ outcome: 'failed', error: '550 mailbox unavailable', attempts: 1 });
    expect(mailer.calls).toBe(1);
  });

  test('a temporary refusal (SMTP 4xx) is sent again', async () => {
    const busy = Object.assign(new Error('451 try later'), { responseCode: 451 });
    const mailer = scriptedMailer([busy]);
    const outcome = await sendWithRetries(mailer, message, {
      attempts: 2,
      backoff: () => 0,
      sleep: async () => {},
    });
    expect(outcome).toMatchObject({ outcome: 'sent', attempts: 2 });
  });

  test('the doubling backoff stops growing at its ceiling', () => {
    const backoff = doublingBackoff(1000, 5000);
    expect([1, 2, 3, 4, 5].map(backoff)).toEqual([1000, 2000, 4000, 5000, 5000]);
  });
});
