import { ClientTimeout, dataOf, errorOf, type Answer } from './http.js';

/**
 * What became of one request:
 * - `ok`: the correct answer (for validate: the license valid with the identifier activated; for
 *   activate: the identifier activated, or, on a license with a limit, ACTIVATION_LIMIT_REACHED
 *   once it is full);
 * - `internal`: 500 INTERNAL_ERROR, the documented answer when a service cannot answer in time;
 * - `wrong`: any other answer, or the connection failed (refused, reset);
 * - `hung`: no answer within the client's time limit (RPC_TIMEOUT_MS plus a margin).
 */
export type Verdict = 'ok' | 'internal' | 'wrong' | 'hung';

export type Operation = 'validate' | 'activate';

export interface Outcome {
  op: Operation;
  key: string;
  identifier: string;
  /** Label of the gateway process the request went to. */
  gateway: string;
  /** Date.now() when it was sent. */
  sentAt: number;
  /** Until its answer (or until the client gave up). */
  ms: number;
  verdict: Verdict;
  status?: number;
  code?: string;
  /** For `wrong`: what came instead. */
  detail?: string;
  /** For an activation told `ok` with 200: it was activated. */
  activated?: boolean;
}

export interface ActivationLicense {
  key: string;
  /** The license's activation limit; 0 = unlimited. */
  limit: number;
}

export interface Target {
  url: string;
  label: string;
}

export type Send = (
  target: Target,
  operation: Operation,
  fields: Record<string, string>,
  timeoutMs: number,
) => Promise<Answer>;

export interface LoadOptions {
  /** Where each request goes when it is sent (a load balancer's choice). */
  target: () => Target;
  send: Send;
  /** A license whose `identifier` is activated: every validate must find it so. */
  validate: { key: string; identifier: string };
  /** Each activate names a new identifier, on these licenses in turn. */
  activations: ActivationLicense[];
  /** Prefix of the identifiers this load activates. */
  identifierPrefix: string;
  /** One validate and one activate per tick. */
  intervalMs: number;
  /** The client's own limit: RPC_TIMEOUT_MS plus a margin. Past it a request counts as hung. */
  timeoutMs: number;
}

/** Judges an answer to validate. */
function judgeValidate(answer: Answer): Pick<Outcome, 'verdict' | 'code' | 'detail'> {
  const data = dataOf(answer);
  if (answer.status === 200 && data?.valid === true && data.identifier_activated === true) {
    return { verdict: 'ok' };
  }
  return judgeFailure(answer);
}

/** Judges an answer to activate of `identifier` on `license`. */
function judgeActivate(
  answer: Answer,
  license: ActivationLicense,
  identifier: string,
): Pick<Outcome, 'verdict' | 'code' | 'detail' | 'activated'> {
  const data = dataOf(answer);
  if (
    answer.status === 200 &&
    data?.identifier === identifier &&
    data.status === 'active' &&
    data.activation_limit === license.limit &&
    (license.limit === 0 || Number(data.activations_used) <= license.limit)
  ) {
    return { verdict: 'ok', activated: true };
  }
  const error = errorOf(answer);
  if (
    answer.status === 403 &&
    license.limit > 0 &&
    error?.code === 'ACTIVATION_LIMIT_REACHED' &&
    error.activations_used === license.limit
  ) {
    return { verdict: 'ok', code: 'ACTIVATION_LIMIT_REACHED', activated: false };
  }
  return judgeFailure(answer);
}

function judgeFailure(answer: Answer): Pick<Outcome, 'verdict' | 'code' | 'detail'> {
  const code = errorOf(answer)?.code;
  if (answer.status === 500 && code === 'INTERNAL_ERROR') {
    return { verdict: 'internal', code: 'INTERNAL_ERROR' };
  }
  return {
    verdict: 'wrong',
    code: typeof code === 'string' ? code : undefined,
    detail: `${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
  };
}

/**
 * A steady, open-loop load of validate and activate: requests leave on a timer whether or not
 * earlier ones were answered, so a stalled system meets the same load as a healthy one. Each
 * request is timed on the client and its answer judged.
 */
export class SteadyLoad {
  readonly outcomes: Outcome[] = [];
  private readonly running = new Map<Promise<void>, { gateway: string; sentAt: number }>();
  private timer: NodeJS.Timeout | undefined;
  private seq = 0;
  private readonly attempted = new Map<string, string[]>();

  constructor(private readonly options: LoadOptions) {
    for (const license of options.activations) this.attempted.set(license.key, []);
  }

  start(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.options.intervalMs);
  }

  /** Stops sending and waits until every request sent has its outcome. */
  async stop(): Promise<Outcome[]> {
    clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all([...this.running.keys()]);
    return this.outcomes;
  }

  /** Requests sent to this gateway and not answered yet. */
  inFlight(gateway?: string): number {
    return [...this.running.values()].filter((r) => gateway === undefined || r.gateway === gateway)
      .length;
  }

  /** Every identifier activate was asked for on this license, in order. */
  attemptedOn(key: string): string[] {
    return this.attempted.get(key) ?? [];
  }

  /** Outcomes of requests sent at or after `since` (Date.now()), optionally to one gateway. */
  sentSince(since: number, gateway?: string): Outcome[] {
    return this.outcomes.filter(
      (o) => o.sentAt >= since && (gateway === undefined || o.gateway === gateway),
    );
  }

  /**
   * Waits until `count` requests in a row (by the time they were sent) sent after `since` got
   * correct answers; returns when the first of them was sent. Throws past `timeoutMs`.
   */
  async recovery(since: number, count: number, timeoutMs: number): Promise<number> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const settled = this.sentSince(since).sort((a, b) => a.sentAt - b.sentAt);
      // Only requests sent before the oldest unanswered one have their final place in the order.
      const oldestRunning = Math.min(...[...this.running.values()].map((r) => r.sentAt));
      let run = 0;
      for (const outcome of settled) {
        if (outcome.sentAt >= oldestRunning) break;
        run = outcome.verdict === 'ok' ? run + 1 : 0;
        if (run === count) return settled[settled.indexOf(outcome) - count + 1]!.sentAt;
      }
      if (Date.now() > until) {
        const last = settled.slice(-5).map((o) => `${o.verdict} ${o.code ?? ''} ${o.detail ?? ''}`);
        throw new Error(`no recovery within ${timeoutMs} ms; last outcomes: ${last.join(' | ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private tick(): void {
    const { validate, activations, identifierPrefix } = this.options;
    this.request('validate', validate.key, validate.identifier, (answer) => judgeValidate(answer));
    const license = activations[this.seq % activations.length];
    if (license === undefined) return;
    this.seq += 1;
    const identifier = `${identifierPrefix}-${this.seq}`;
    this.attempted.get(license.key)?.push(identifier);
    this.request('activate', license.key, identifier, (answer) =>
      judgeActivate(answer, license, identifier),
    );
  }

  private request(
    op: Operation,
    key: string,
    identifier: string,
    judge: (answer: Answer) => Pick<Outcome, 'verdict' | 'code' | 'detail' | 'activated'>,
  ): void {
    const sentAt = Date.now();
    const started = performance.now();
    const fields = { license_key: key, identifier };
    let target: Target = { url: '', label: 'none' };
    let sent: Promise<Answer>;
    try {
      target = this.options.target();
      sent = this.options.send(target, op, fields, this.options.timeoutMs);
    } catch (error) {
      sent = Promise.reject(error as Error);
    }
    const done = sent
      .then(
        (answer): Outcome => ({
          op,
          key,
          identifier,
          gateway: target.label,
          sentAt,
          ms: answer.ms,
          status: answer.status,
          ...judge(answer),
        }),
        (error: Error): Outcome => ({
          op,
          key,
          identifier,
          gateway: target.label,
          sentAt,
          ms: performance.now() - started,
          verdict: error instanceof ClientTimeout ? 'hung' : 'wrong',
          detail: `${error.name}: ${(error as NodeJS.ErrnoException).code ?? error.message}`,
        }),
      )
      .then((outcome) => {
        this.outcomes.push(outcome);
      });
    this.running.set(done, { gateway: target.label, sentAt });
    void done.finally(() => this.running.delete(done));
  }
}

export interface Tally {
  sent: number;
  answered: number;
  ok: number;
  internal: number;
  wrong: number;
  hung: number;
  /** The slowest answered request (ms). */
  worstMs: number;
}

export function tally(outcomes: Outcome[]): Tally {
  const count = (verdict: Verdict) => outcomes.filter((o) => o.verdict === verdict).length;
  const answered = outcomes.filter((o) => o.status !== undefined);
  return {
    sent: outcomes.length,
    answered: answered.length,
    ok: count('ok'),
    internal: count('internal'),
    wrong: count('wrong'),
    hung: count('hung'),
    worstMs: Math.round(Math.max(0, ...answered.map((o) => o.ms))),
  };
}

/** The outcomes that are not correct answers, one line each (at most `max`), for messages. */
export function describeFailures(outcomes: Outcome[], max = 10): string[] {
  return outcomes
    .filter((o) => o.verdict !== 'ok')
    .slice(0, max)
    .map(
      (o) =>
        `${o.op} ${o.identifier} via ${o.gateway} sent ${new Date(o.sentAt).toISOString().slice(11, 23)}: ${o.verdict} ` +
        `${o.code ?? ''} ${o.detail ?? ''} (${Math.round(o.ms)} ms)`,
    );
}
