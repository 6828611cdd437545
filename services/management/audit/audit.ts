import { withTimeout } from '../../../libs/process/timeout.js';
import type { Logger } from '../../../libs/logging/index.js';
import type { ActingAdmin } from '../admins/admin-tokens.js';
import { changedFields, leftAsItWas } from './audit-rules.js';
import type { AuditLogStore, AuditRecord } from '../stores.js';

/** How long the answer to a change waits for its audit entry to be written. */
const AUDIT_WRITE_TIMEOUT_MS = 5_000;

/** A change as a route describes it, before what is kept of it is decided. */
export interface Change {
  action: string;
  target: string;
  before: unknown;
  after: unknown;
}

/**
 * Writes the audit log: one entry per change made through the management API (one per record
 * that a bulk change changed), written before the change is answered. The change itself is made
 * by another service, and there is no transaction across the two: an entry that cannot be
 * written is logged as an error, whole but for its before and after, and the change is answered
 * as made, since it was. A store's changes are written from the stores service's events instead
 * (store-audit.ts).
 */
export class AuditTrail {
  constructor(
    private readonly store: AuditLogStore,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async record(admin: ActingAdmin, change: Change): Promise<void> {
    await this.write(this.entryOf(admin, change));
  }

  /**
   * A change of many records (a bulk change): an entry for each record it changed, and none for
   * a record it left as it was, so a change that changed nothing writes nothing.
   */
  async recordEach(admin: ActingAdmin, changes: readonly Change[]): Promise<void> {
    const entries = changes
      .map((change) => this.entryOf(admin, change))
      .filter((entry) => !leftAsItWas(entry));
    await Promise.all(entries.map((entry) => this.write(entry)));
  }

  private entryOf(admin: ActingAdmin, change: Change): AuditRecord {
    return {
      at: this.clock(),
      admin: { id: admin.id, name: admin.name },
      source: { kind: 'admin' },
      action: change.action,
      target: change.target,
      ...changedFields(change.before, change.after),
    };
  }

  private async write(entry: AuditRecord): Promise<void> {
    try {
      await withTimeout(
        this.store.record(entry),
        AUDIT_WRITE_TIMEOUT_MS,
        `The audit log was not written within ${AUDIT_WRITE_TIMEOUT_MS} ms.`,
      );
    } catch (error) {
      this.logger.error(
        { err: error, admin: entry.admin, action: entry.action, target: entry.target },
        'an audit entry could not be written',
      );
    }
  }
}
