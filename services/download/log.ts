import { logValue, type CallContext } from '../../libs/contracts/index.js';
import type { Logger } from '../../libs/logging/index.js';
import { metrics } from '../../libs/observability/index.js';
import { withTimeout } from '../../libs/process/timeout.js';
import type { DownloadLogStore, DownloadRequestRecord } from './stores.js';

/** Writing the log must never hold up the client's answer for long (docs/api-decisions.md). */
const LOG_WRITE_TIMEOUT_MS = 2000;

/** A download request as it was sent: the writer stamps the time and cuts over-long values. */
export type LoggedRequest = Omit<DownloadRequestRecord, 'at'>;

/**
 * Writes the download log (spec 4.5) for the RPC handlers and the byte port alike. Every write
 * is bounded in time and never throws: the answer to the client does not depend on the log. The
 * one exception: a write for an RPC call whose deadline has passed is not made, and the
 * context's error is thrown, as for every write of a call its caller gave up on
 * (docs/architecture.md).
 */
export class DownloadLogWriter {
  private readonly store: DownloadLogStore;
  private readonly logger: Logger;
  private readonly clock: () => Date;

  constructor(deps: { store: DownloadLogStore; logger: Logger; clock?: () => Date }) {
    this.store = deps.store;
    this.logger = deps.logger;
    this.clock = deps.clock ?? (() => new Date());
  }

  private async bounded<T>({
    what,
    write,
    context,
  }: {
    what: string;
    write: () => Promise<T>;
    context: CallContext | undefined;
  }): Promise<T | null> {
    context?.beforeWrite();
    try {
      return await withTimeout(write(), LOG_WRITE_TIMEOUT_MS, `${what} timed out`);
    } catch (error) {
      this.logger.error({ err: error }, `could not write the download log (${what})`);
      return null;
    }
  }

  private entry(request: LoggedRequest): DownloadRequestRecord {
    return {
      at: this.clock(),
      product_id: request.product_id,
      license_key: logValue(request.license_key),
      identifier: logValue(request.identifier),
      ip: request.ip,
    };
  }

  /** A download allowed by `download.authorize`; answers the entry id (null if not written). */
  served({
    request,
    file,
    context,
  }: {
    request: LoggedRequest;
    file: { file_id: number; version: string };
    context?: CallContext;
  }): Promise<string | null> {
    return this.bounded({
      what: 'served',
      write: () => this.store.recordServed({ ...this.entry(request), ...file }),
      context,
    });
  }

  /** A new refused entry, with the error code the client got; whether it was written. */
  async refused({
    request,
    reason,
    context,
  }: {
    request: LoggedRequest;
    reason: string;
    context?: CallContext;
  }): Promise<boolean> {
    metrics.downloadRefusals.inc({ reason });
    const id = await this.bounded({
      what: 'refused',
      write: () => this.store.recordRefused({ ...this.entry(request), reason }),
      context,
    });
    return id !== null;
  }

  /**
   * A download that was logged as served when it was authorised, but whose bytes did not reach
   * the client (a bad range, an object missing from storage, a failure before the first byte):
   * the entry becomes a refusal with the reason, keeping the file and version it was for. An
   * entry that is already a refusal is left alone.
   */
  async servedBecameRefused({
    entryId,
    reason,
    context,
  }: {
    entryId: string;
    reason: string;
    context?: CallContext;
  }): Promise<boolean> {
    metrics.downloadRefusals.inc({ reason });
    const changed = await this.bounded({
      what: 'refusal after authorisation',
      write: () => this.store.markServedAsRefused({ id: entryId, reason }),
      context,
    });
    return changed === true;
  }
}
