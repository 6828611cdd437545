export * from './metrics.js';
export * from './ops-server.js';
export * from './readiness.js';
export * from './request-context.js';
export { activeSpan, activeTraceId, stopTracing } from './tracing.js';
