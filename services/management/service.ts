import type { Connection } from 'mongoose';
import { trustProxySetting, type Config, type ConfigVariable } from '../../libs/config/index.js';
import { listen, publishedKeySet } from '../../libs/http/index.js';
import type { Logger } from '../../libs/logging/index.js';
import type { ReadinessProbe } from '../../libs/observability/index.js';
import {
  databaseSettings,
  messageBusSettings,
  type ProcessSpec,
} from '../../libs/process/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { createManagementApp, managementListenOptions } from './app.js';
import { openMongoManagementStores } from './mongo-stores.js';
import { signingKeysView } from './operations/signing-keys.js';
import { auditDomainEvent } from './audit/store-audit.js';

/** The settings the management API reads (README: Configuration). */
export const managementSettings = [
  'HOST',
  'ADMIN_PORT',
  'ADMIN_TOKENS',
  'AUDIT_RETENTION_DAYS',
  'TRUST_PROXY',
  'HTTP_REQUEST_TIMEOUT_MS',
  'MAX_UPLOAD_BYTES',
  // Only to show where the public API publishes its signing keys and where stores send events.
  'PUBLIC_URL',
  'SIGNING_KEY',
  'SIGNING_KEY_FILE',
] as const satisfies readonly ConfigVariable[];

/**
 * The management API as its own process (main.ts), which reaches RabbitMQ and its database
 * (named admins, the audit log) itself: the settings it reads, and those it cannot start without.
 */
export const managementProcess = {
  name: 'management',
  settings: [...messageBusSettings, ...databaseSettings, ...managementSettings],
  required: ['AMQP_URL', 'MONGODB_URL', 'ADMIN_TOKENS'],
} as const satisfies ProcessSpec;

/**
 * The management API listening on ADMIN_PORT, keeping named admins and the audit log in `db`,
 * into which it also takes the license changes stores made (the domain events of its `audit`
 * consumer, audit/store-audit.ts). `stop` closes the port; the caller, the transport and the
 * database.
 */
export async function managementFromConfig(
  config: Pick<Config, (typeof managementSettings)[number]>,
  deps: { db: Connection; transport: Transport; logger: Logger; readiness: ReadinessProbe },
): Promise<{ url: string; stop(): Promise<void> }> {
  const stores = await openMongoManagementStores(deps.db, config.AUDIT_RETENTION_DAYS);
  await deps.transport.consumeDomainEvents('audit', async (event) => {
    await auditDomainEvent(event, stores.audit);
  });
  const app = createManagementApp({
    transport: deps.transport,
    logger: deps.logger,
    adminTokens: config.ADMIN_TOKENS,
    stores,
    trustProxy: trustProxySetting(config.TRUST_PROXY),
    maxUploadBytes: config.MAX_UPLOAD_BYTES,
    requestTimeoutMs: config.HTTP_REQUEST_TIMEOUT_MS,
    readiness: deps.readiness,
    signingKeys: signingKeysView(
      config.SIGNING_KEY && (await publishedKeySet(config.SIGNING_KEY)),
      config.PUBLIC_URL,
    ),
    publicUrl: config.PUBLIC_URL,
  });
  const server = await listen(
    app,
    config.ADMIN_PORT,
    config.HOST,
    deps.logger,
    managementListenOptions(config.HTTP_REQUEST_TIMEOUT_MS),
  );
  return { url: server.url, stop: server.close };
}
