import type {
  StoreConnectionSource,
  StoreEventSource,
  StoreLicenseAction,
  StoreLicenseChange,
  StoreLicensesChanged,
} from '../../../libs/contracts/index.js';
import type { PublishDomainEvent } from '../../../libs/transport/domain-events.js';
import type { StoreConnectionRecord, StoreEventRecord } from '../stores.js';
import type { StoreEvent } from '../store-events.js';
import type { StoreLicense } from './store-licenses.js';

/**
 * What the stores service tells of the license changes it makes, for the management service's
 * audit log (docs/stores.md, "The audit log"): published as `store.licenses_changed`, durably,
 * once the changes are made. The audit log is another service's, so it is told, never written.
 */
export interface ChangeReports {
  licensesChanged(changes: StoreLicensesChanged, at: Date): void;
}

/** The reports as domain events. */
export function publishedChangeReports(publish: PublishDomainEvent): ChangeReports {
  return {
    licensesChanged(changes, at) {
      publish('store.licenses_changed', changes, at);
    },
  };
}

/** One change made through the license service: the license before it (none: made) and after. */
export interface MadeChange {
  readonly action: StoreLicenseAction;
  readonly before: StoreLicense | null;
  readonly after: StoreLicense;
}

/**
 * The changes as the audit log is told them: each with the license's fields before (none for a
 * license made) and after; the audit log keeps those that moved, and nothing of a change that
 * moved none.
 */
export function reportedChanges(made: readonly MadeChange[]): StoreLicenseChange[] {
  return made.map(({ action, before, after }) => ({
    action,
    license_key: after.license_key,
    before: before === null ? null : { ...before.fields },
    after: { ...after.fields },
  }));
}

/** A connection as the audit log names it: its id, name and store now. */
export function connectionSource(connection: StoreConnectionRecord): StoreConnectionSource {
  return { id: connection.id, name: connection.name, provider: connection.provider };
}

/** A received event as the audit log names it: its id here, the store's id and name, its kind. */
export function eventSource(record: StoreEventRecord, event: StoreEvent): StoreEventSource {
  return { id: record.id, event_id: record.event_id, type: record.type, kind: event.kind };
}

/**
 * Tells the changes one store event (or, with `event` null, the grace sweep) made, if it made
 * any: one event of them all, in the order made.
 */
export function reportChanges(
  reports: ChangeReports,
  source: { connection: StoreConnectionRecord; event: StoreEventSource | null },
  made: readonly MadeChange[],
  at: Date,
): void {
  if (made.length === 0) return;
  reports.licensesChanged(
    {
      connection: connectionSource(source.connection),
      store_event: source.event,
      changes: reportedChanges(made),
    },
    at,
  );
}
