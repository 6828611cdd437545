import { randomUUID } from 'node:crypto';
import type { Logger } from '../../libs/logging/index.js';
import { metrics } from '../../libs/observability/index.js';
import { settled } from '../../libs/process/timeout.js';
import { PollLoop } from '../../libs/process/poll-loop.js';
import { postWebhook, type DestinationPolicy } from './destination.js';
import {
  ATTEMPT_TIMEOUT_MS,
  afterAttempt,
  endpointHealth,
  isDelivered,
  keptResponse,
  signingSecrets,
} from './rules.js';
import { signatureHeader } from './signatures.js';
import type { WebhookDeliveryRecord, WebhookEndpointRecord, WebhookStores } from './stores.js';

/** Attempts one replica makes at once to one endpoint: a slow one holds no more than these... */
export const ATTEMPTS_PER_ENDPOINT = 4;
/** ...and to all of them together. */
export const ATTEMPTS_PER_REPLICA = 32;
/**
 * A claimed delivery is due again after this, should its sender die before recording the
 * attempt: another replica then tries it, under the same `webhook-id`.
 */
const CLAIM_MS = 3 * ATTEMPT_TIMEOUT_MS;
/** Due deliveries are looked for this often, and at once when one is added. */
const POLL_MS = 1000;

export interface SenderDeps {
  stores: WebhookStores;
  /** The waits between attempts (WEBHOOK_RETRY_SCHEDULE), in milliseconds. */
  schedule: readonly number[];
  policy: DestinationPolicy;
  logger: Logger;
  clock: () => Date;
  post?: typeof postWebhook;
}

/**
 * One attempt of a delivery claimed under `claim`: signed with the endpoint's secrets (Standard
 * Webhooks), sent, recorded with the delivery's state after it, and the endpoint's health
 * updated (disabled when it has failed for 5 days).
 */
export async function attemptDelivery(
  deps: SenderDeps,
  endpoint: WebhookEndpointRecord,
  delivery: WebhookDeliveryRecord,
  claim: string,
): Promise<void> {
  const { stores, clock, logger } = deps;
  const startedAt = clock();
  const timestamp = Math.floor(startedAt.getTime() / 1000);
  const headers = {
    'webhook-id': delivery.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signatureHeader(
      signingSecrets(endpoint.secrets, startedAt),
      delivery.id,
      timestamp,
      delivery.payload,
    ),
  };
  const outcome = await (deps.post ?? postWebhook)(
    endpoint.url,
    headers,
    delivery.payload,
    deps.policy,
  );
  const delivered = isDelivered(outcome.status);
  const now = clock();
  const state = afterAttempt(delivery.attempts.length + 1, delivered, deps.schedule, now);
  const recorded = await stores.deliveries.recordAttempt(
    delivery.id,
    claim,
    { ...outcome, at: startedAt, response: keptResponse(outcome.response) },
    state,
  );
  const label = delivered ? 'delivered' : state.status === 'failed' ? 'failed' : 'retry';
  metrics.webhookAttemptDuration.observe({ outcome: label }, outcome.duration_ms / 1000);
  if (!recorded) {
    logger.warn({ delivery: delivery.id }, 'webhook attempt not recorded: its claim had lapsed');
    return;
  }
  metrics.webhookDeliveries.inc({ outcome: label });
  if (delivered) {
    metrics.webhookDeliveryLatency.observe((now.getTime() - delivery.event_at.getTime()) / 1000);
  }
  logger.info(
    {
      delivery: delivery.id,
      endpoint: endpoint.id,
      event: delivery.event_type,
      status: outcome.status,
      error: outcome.error,
      duration_ms: outcome.duration_ms,
      outcome: label,
    },
    'webhook attempt',
  );
  await updateHealth(deps, endpoint.id, delivered, now);
}

async function updateHealth(
  { stores, logger }: SenderDeps,
  endpointId: number,
  delivered: boolean,
  now: Date,
): Promise<void> {
  const endpoint = await stores.endpoints.find(endpointId);
  if (!endpoint) return;
  const health = endpointHealth(endpoint.failing_since, delivered, now);
  if (health.disable && endpoint.enabled) {
    await stores.endpoints.update(endpointId, {
      enabled: false,
      disabled_reason: 'failing',
      failing_since: health.failing_since,
    });
    metrics.webhookEndpointsDisabled.inc();
    logger.warn(
      { endpoint: endpointId, url: endpoint.url, failing_since: health.failing_since },
      'webhook endpoint disabled: none of its attempts succeeded for 5 days',
    );
  } else if (health.failing_since?.getTime() !== endpoint.failing_since?.getTime()) {
    await stores.endpoints.update(endpointId, { failing_since: health.failing_since });
  }
}

/**
 * Sends the due deliveries of enabled endpoints, several at once but at most
 * `ATTEMPTS_PER_ENDPOINT` to one endpoint, so a slow or dead endpoint delays no other. Several
 * replicas share the work: each attempt is claimed in the database first, so one replica makes it.
 */
export class DeliverySender {
  private readonly inFlight = new Map<number, number>();
  private readonly running = new Set<Promise<void>>();
  private readonly polling = new PollLoop({
    intervalMs: POLL_MS,
    turn: () => this.claimWhatIsDue(),
    onError: (error) =>
      this.deps.logger.warn({ err: error }, 'looking for due webhook deliveries failed'),
  });

  constructor(private readonly deps: SenderDeps) {}

  start(): void {
    this.polling.start();
  }

  /** Something is due now: look at once instead of at the next poll. */
  nudge(): void {
    this.polling.nudge();
  }

  /** Claims nothing more, and lets the attempts under way finish (each ends within 10 s). */
  async stop(): Promise<void> {
    await this.polling.stop();
    await settled(Promise.all(this.running), ATTEMPT_TIMEOUT_MS + 5000);
  }

  private total(): number {
    return this.running.size;
  }

  private async claimWhatIsDue(): Promise<void> {
    const { stores, clock } = this.deps;
    const endpoints = new Map((await stores.endpoints.enabled()).map((e) => [e.id, e]));
    while (!this.polling.stopped && this.total() < ATTEMPTS_PER_REPLICA) {
      const open = [...endpoints.keys()].filter(
        (id) => (this.inFlight.get(id) ?? 0) < ATTEMPTS_PER_ENDPOINT,
      );
      const now = clock();
      const claim = randomUUID();
      const delivery = await stores.deliveries.claimDue(
        now,
        open,
        claim,
        new Date(now.getTime() + CLAIM_MS),
      );
      if (!delivery) return;
      this.send(endpoints.get(delivery.endpoint_id)!, delivery, claim);
    }
  }

  private send(
    endpoint: WebhookEndpointRecord,
    delivery: WebhookDeliveryRecord,
    claim: string,
  ): void {
    this.inFlight.set(endpoint.id, (this.inFlight.get(endpoint.id) ?? 0) + 1);
    const attempt = attemptDelivery(this.deps, endpoint, delivery, claim)
      .catch((error: unknown) =>
        this.deps.logger.warn({ err: error, delivery: delivery.id }, 'webhook attempt failed'),
      )
      .finally(() => {
        this.running.delete(attempt);
        this.inFlight.set(endpoint.id, (this.inFlight.get(endpoint.id) ?? 1) - 1);
        // A slot is free: another due delivery may be claimed now.
        this.nudge();
      });
    this.running.add(attempt);
  }
}
