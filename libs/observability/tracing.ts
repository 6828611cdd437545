import { createRequire } from 'node:module';
import path from 'node:path';
import { trace, type Span } from '@opentelemetry/api';
import { tracingSettings } from '../config/index.js';
import { redactedPath, redactedQuery } from './trace-redaction.js';
import type * as SdkNode from '@opentelemetry/sdk-node';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as HttpTracing from '@opentelemetry/instrumentation-http';
import type * as AmqplibTracing from '@opentelemetry/instrumentation-amqplib';
import type * as MongoDbTracing from '@opentelemetry/instrumentation-mongodb';
import type * as IORedisTracing from '@opentelemetry/instrumentation-ioredis';

/**
 * Distributed tracing with OpenTelemetry, on when OTEL_EXPORTER_OTLP_ENDPOINT is set (spans are
 * exported over OTLP/HTTP there), off otherwise. This module is the first import of every entry
 * point: the instrumentations patch the CommonJS libraries they trace (http, amqplib, the
 * MongoDB driver, ioredis) as those are loaded, so they must be registered first. amqplib's
 * instrumentation carries the W3C `traceparent` in the RPC messages' headers, so one request is
 * one trace from the gateway to the service that answers it and its database.
 */

const settings = tracingSettings();

/** `licensing-gateway` for `services/gateway/main.ts`, unless OTEL_SERVICE_NAME says otherwise. */
function serviceName(): string {
  if (settings.OTEL_SERVICE_NAME) return settings.OTEL_SERVICE_NAME;
  const entry = process.argv[1] ?? '';
  const folder = path.basename(path.dirname(entry));
  return folder === 'all-in-one' || folder === '' ? 'licensing' : `licensing-${folder}`;
}

interface Sdk {
  start(): void;
  shutdown(): Promise<void>;
}

let sdk: Sdk | undefined;

if (settings.OTEL_EXPORTER_OTLP_ENDPOINT) {
  // Loaded only when tracing is on; CommonJS packages, so they load before this module returns.
  const load = createRequire(import.meta.url);
  const { NodeSDK } = load('@opentelemetry/sdk-node') as typeof SdkNode;
  const { OTLPTraceExporter } = load('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
  const { HttpInstrumentation } = load('@opentelemetry/instrumentation-http') as typeof HttpTracing;
  const { AmqplibInstrumentation } = load(
    '@opentelemetry/instrumentation-amqplib',
  ) as typeof AmqplibTracing;
  const { MongoDBInstrumentation } = load(
    '@opentelemetry/instrumentation-mongodb',
  ) as typeof MongoDbTracing;
  const { IORedisInstrumentation } = load(
    '@opentelemetry/instrumentation-ioredis',
  ) as typeof IORedisTracing;
  sdk = new NodeSDK({
    serviceName: serviceName(),
    // The OTLP/HTTP convention: the generic endpoint, with the signal's path appended.
    traceExporter: new OTLPTraceExporter({
      url: `${settings.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`,
    }),
    instrumentations: [
      new HttpInstrumentation({
        // No credential leaves in a span (trace-redaction.ts).
        requestHook: (span, request) => {
          if ('url' in request && typeof request.url === 'string') {
            // A request this process serves: path and query as received.
            const [path = '', query] = request.url.split(/\?(.*)/s, 2);
            span.setAttribute('url.path', redactedPath(path));
            if (query) span.setAttribute('url.query', redactedQuery(query));
          } else if ('path' in request) {
            // A request this process makes (the gateway to the download service's byte port).
            const host = request.getHeader('host') ?? request.host;
            span.setAttribute(
              'url.full',
              `${request.protocol}//${String(host)}${redactedPath(request.path)}`,
            );
          }
        },
      }),
      new AmqplibInstrumentation(),
      // Statements with their values replaced by `?` (the default; kept explicit).
      new MongoDBInstrumentation({ enhancedDatabaseReporting: false }),
      // The command alone: Redis keys of the rate limits name client addresses.
      new IORedisInstrumentation({ dbStatementSerializer: (command) => command }),
    ],
  });
  sdk.start();
}

const tracingEnabled = sdk !== undefined;

/** Sends the spans still buffered; part of every graceful stop. */
export async function stopTracing(): Promise<void> {
  await sdk?.shutdown().catch(() => {});
}

/** The span of the work in progress (the HTTP request, the RPC being answered), if traced. */
export function activeSpan(): Span | undefined {
  return tracingEnabled ? trace.getActiveSpan() : undefined;
}

/** The trace id of the work in progress, when it is traced. */
export function activeTraceId(): string | undefined {
  return activeSpan()?.spanContext().traceId;
}
