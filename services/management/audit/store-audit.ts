import type { AuditSource, DomainEvent, DomainEventOf } from '../../../libs/contracts/index.js';
import { keyFingerprint } from '../../../libs/logging/index.js';
import { withTimeout } from '../../../libs/process/timeout.js';
import { changedFields, leftAsItWas } from './audit-rules.js';
import type { AuditLogStore, ReportedAuditRecord } from '../stores.js';

/** How long writing an event's entries may take; past it the event is delivered again. */
const STORE_AUDIT_WRITE_TIMEOUT_MS = 5_000;

/**
 * The entries of the license changes a store made (`store.licenses_changed`, published by the
 * stores service): one per change, named by no admin, its source the store's event (or the grace
 * sweep, for a license suspended past due), at the moment the event reports. Each keeps what an
 * admin's change of a license keeps (audit-rules.ts): the license by its key's fingerprint, the
 * fields that moved, no secret; a change that moved nothing has none. Each is keyed by the event's
 * id and the change's place in it, so the event delivered again writes nothing twice.
 */
export function storeAuditEntries(
  event: DomainEventOf<'store.licenses_changed'>,
): ReportedAuditRecord[] {
  const { connection, store_event, changes } = event.data;
  const source: AuditSource =
    store_event === null
      ? { kind: 'store_grace', connection }
      : { kind: 'store_event', connection, event: store_event };
  return changes.flatMap((change, index) => {
    const kept = changedFields(change.before, change.after);
    if (leftAsItWas(kept)) return [];
    return [
      {
        key: `${event.id}:${index}`,
        at: new Date(event.timestamp),
        admin: null,
        source,
        action: change.action,
        target: `license:${keyFingerprint(change.license_key)}`,
        ...kept,
      },
    ];
  });
}

/**
 * The audit log's domain event consumer (`audit`): writes the entries of a store's changes, each
 * once, and answers how many it wrote. Its queue takes no other type; one that came anyway is not
 * the audit log's. A write that fails or times out rejects, so the event is delivered again.
 */
export async function auditDomainEvent(
  event: DomainEvent,
  store: Pick<AuditLogStore, 'recordOnce'>,
): Promise<number> {
  if (event.type !== 'store.licenses_changed') return 0;
  return withTimeout(
    store.recordOnce(storeAuditEntries(event)),
    STORE_AUDIT_WRITE_TIMEOUT_MS,
    `The audit log was not written within ${STORE_AUDIT_WRITE_TIMEOUT_MS} ms.`,
  );
}
