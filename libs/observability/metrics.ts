import { Counter, Gauge, Histogram, collectDefaultMetrics, register } from 'prom-client';

/**
 * The process's Prometheus metrics, served on /metrics of its operations port. One registry per
 * process; in `npm start` every service shares it, told apart by route and RPC method labels.
 */

/** Seconds: from a fraction of a millisecond (a cached answer) to the RPC timeout and beyond. */
const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

export const metrics = {
  httpRequests: new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
  }),
  httpDuration: new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
  }),
  rpcCalls: new Histogram({
    name: 'rpc_call_duration_seconds',
    help: 'RPC calls this process made, by method and outcome (ok, an error code, or timeout).',
    labelNames: ['method', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
  }),
  rpcHandlers: new Histogram({
    name: 'rpc_handler_duration_seconds',
    help: 'Time this process spent answering an RPC request, by method and outcome.',
    labelNames: ['method', 'outcome'] as const,
    buckets: LATENCY_BUCKETS,
  }),
  rateLimitRefusals: new Counter({
    name: 'rate_limit_refusals_total',
    help: 'Requests refused with RATE_LIMITED, by limit.',
    labelNames: ['limit'] as const,
  }),
  scheduledTaskRuns: new Counter({
    name: 'scheduled_task_runs_total',
    help: 'Runs of the scheduled tasks, by task, trigger and outcome (ok or failed).',
    labelNames: ['task', 'trigger', 'outcome'] as const,
  }),
  downloadBytes: new Counter({
    name: 'download_bytes_total',
    help: 'Package bytes relayed to clients by the gateway.',
  }),
  downloadRelays: new Gauge({
    name: 'download_relays_in_progress',
    help: 'Package files the gateway is relaying from the object store right now.',
  }),
  downloadRefusals: new Counter({
    name: 'download_refusals_total',
    help: 'Refused downloads, by reason (the error code the client got).',
    labelNames: ['reason'] as const,
  }),
  webhookDeliveries: new Counter({
    name: 'webhook_deliveries_total',
    help:
      'Webhook delivery attempts, by outcome: delivered, retry (failed, to be tried again) or ' +
      'failed (failed, the retry schedule spent).',
    labelNames: ['outcome'] as const,
  }),
  webhookAttemptDuration: new Histogram({
    name: 'webhook_attempt_duration_seconds',
    help: 'Time an endpoint took to answer a webhook attempt (or to fail), by outcome.',
    labelNames: ['outcome'] as const,
    buckets: LATENCY_BUCKETS,
  }),
  webhookDeliveryLatency: new Histogram({
    name: 'webhook_delivery_latency_seconds',
    help: 'From the event to its delivery: the time a receiver waited, retries included.',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 7200, 36_000, 86_400],
  }),
  webhookEndpointsDisabled: new Counter({
    name: 'webhook_endpoints_disabled_total',
    help: 'Webhook endpoints disabled because none of their attempts succeeded for 5 days.',
  }),
  activationOutcomes: new Counter({
    name: 'activation_outcomes_total',
    help: 'Activate calls, by outcome: activated, already-active, or the refusal code.',
    labelNames: ['outcome'] as const,
  }),
  domainEventsPublished: new Counter({
    name: 'domain_events_published_total',
    help: 'Domain events published, by type and outcome: confirmed (the message bus took it) or dropped (the outbox was full).',
    labelNames: ['type', 'outcome'] as const,
  }),
  domainEventOutbox: new Gauge({
    name: 'domain_event_outbox_size',
    help: 'Domain events this process holds until the broker confirms them.',
  }),
  domainEventsConsumed: new Counter({
    name: 'domain_events_consumed_total',
    help: 'Domain events taken from a consumer queue, by consumer and outcome: ok, failed (delivered again) or malformed (discarded).',
    labelNames: ['consumer', 'outcome'] as const,
  }),
};

// Process metrics: CPU, memory, handles, garbage collection, event-loop lag. The lag is sampled
// every 100 ms (prom-client's default, 10 ms, wakes every idle process 100 times a second, which
// cost each ~0.4 % of a core here: docs/performance.md); a stall still shows in the next sample.
collectDefaultMetrics({ eventLoopMonitoringPrecision: 100 });

/** The Prometheus text of every metric. */
export function metricsText(): Promise<string> {
  return register.metrics();
}

export const metricsContentType = register.contentType;

/** Seconds since `started` (from `process.hrtime.bigint()`). */
export function secondsSince(started: bigint): number {
  return Number(process.hrtime.bigint() - started) / 1e9;
}
