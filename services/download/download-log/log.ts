import {
  logValue,
  type CallContext,
  type RefusedLicenseStatus,
} from '../../../libs/contracts/index.js';
import type { Logger } from '../../../libs/logging/index.js';
import { metrics } from '../../../libs/observability/index.js';
import { withTimeout } from '../../../libs/process/timeout.js';
import type { DownloadEvents } from '../events.js';
import type { DownloadLogStore, DownloadRequestRecord, LoggedRequest } from './stores.js';

/** Writing the log must never hold up the client's answer for long (docs/api-decisions.md). */
const LOG_WRITE_TIMEOUT_MS = 2000;
/** A batch of refusals this large is written at once. */
export const REFUSALS_BATCH_MAX = 200;

type RefusalRecord = DownloadRequestRecord & {
  reason: string;
  license_status: RefusedLicenseStatus | null;
};

/**
 * Writes the download log (spec 4.5) for the RPC handlers and the byte port alike. Every write
 * is bounded in time and never throws: the answer to the client does not depend on the log. The
 * one exception: a write for an RPC call whose deadline has passed is not made, and the
 * context's error is thrown, as for every write of a call its caller gave up on
 * (docs/architecture.md).
 *
 * Served entries are written one by one before their link is given out (the byte port of any
 * replica may turn one into a refusal). Refusals are written together, so a stream of refused
 * requests costs one database command per batch (docs/performance.md): the first of a batch
 * waits at most `batchMs` (DOWNLOAD_LOG_BATCH_MS), and `flush` (a log read, a stop) writes those
 * waiting at once.
 *
 * Each entry is a domain event once the store has taken it (`download.served`,
 * `download.refused`), not when it is handed over: a write that fails or times out drops its
 * entries (the answer does not wait for the log), and an entry that was never written is no event.
 */
export class DownloadLogWriter {
  private readonly store: DownloadLogStore;
  private readonly events: DownloadEvents;
  private readonly logger: Logger;
  private readonly clock: () => Date;
  private readonly batchMs: number;
  /** Set by `close`: a refusal from then on is written at once. */
  private closed = false;
  private waiting: Array<{ record: RefusalRecord; written: (done: boolean) => void }> = [];
  private timer: NodeJS.Timeout | null = null;
  private readonly writing = new Set<Promise<void>>();

  constructor(deps: {
    store: DownloadLogStore;
    /** Where each entry written goes as a domain event. */
    events: DownloadEvents;
    logger: Logger;
    batchMs: number;
    clock?: () => Date;
  }) {
    this.store = deps.store;
    this.events = deps.events;
    this.logger = deps.logger;
    this.batchMs = deps.batchMs;
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
  async served({
    request,
    file,
    context,
  }: {
    request: LoggedRequest & { product_id: number };
    file: { file_id: number; version: string; filename: string };
    context?: CallContext;
  }): Promise<string | null> {
    const entry = this.entry(request);
    const { filename, ...served } = file;
    const id = await this.bounded({
      what: 'served',
      write: () => this.store.recordServed({ ...entry, ...served }),
      context,
    });
    if (id !== null) {
      this.events.served({
        request: { ...entry, product_id: request.product_id },
        version: file.version,
        filename,
        at: entry.at,
      });
    }
    return id;
  }

  /**
   * A new refused entry, with the error code the client got and, for a refusal decided on a
   * key, the license's status then. It joins the next batch; the promise says whether that batch
   * was written, and never rejects. A call whose deadline has passed throws the context's error
   * here, before anything is kept.
   */
  refused({
    request,
    reason,
    licenseStatus = null,
    context,
  }: {
    request: LoggedRequest;
    reason: string;
    licenseStatus?: RefusedLicenseStatus | null;
    context?: CallContext;
  }): Promise<boolean> {
    context?.beforeWrite();
    metrics.downloadRefusals.inc({ reason });
    const record = { ...this.entry(request), reason, license_status: licenseStatus };
    const written = new Promise<boolean>((resolve) =>
      this.waiting.push({ record, written: resolve }),
    );
    if (this.closed || this.batchMs === 0 || this.waiting.length >= REFUSALS_BATCH_MAX) {
      this.writeWaiting();
    } else {
      this.timer ??= setTimeout(() => this.writeWaiting(), this.batchMs);
    }
    return written;
  }

  /** Writes the refusals waiting now, and waits for every batch under way. */
  async flush(): Promise<void> {
    this.writeWaiting();
    await Promise.all(this.writing);
  }

  /** On stop: the refusals waiting are written, and any that still comes is written at once. */
  close(): Promise<void> {
    this.closed = true;
    return this.flush();
  }

  private writeWaiting(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.waiting;
    this.waiting = [];
    if (batch.length === 0) return;
    const write = this.bounded({
      what: `${batch.length} refused`,
      write: () => this.store.recordRefusals(batch.map(({ record }) => record)),
      context: undefined,
    }).then((ids) => {
      if (ids !== null) {
        for (const { record } of batch) {
          this.events.refused({
            request: record,
            reason: record.reason,
            at: record.at,
            servedAt: null,
          });
        }
      }
      for (const { written } of batch) written(ids !== null);
    });
    this.writing.add(write);
    void write.finally(() => this.writing.delete(write));
  }

  /**
   * A download that was logged as served when it was authorised, but whose bytes did not reach
   * the client (a bad range, an object missing from storage, a failure before the first byte):
   * the entry becomes a refusal with the reason, keeping the file and version it was for. An
   * entry that is already a refusal is left alone. The entry changed is `download.refused`.
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
    const at = this.clock();
    const changed = await this.bounded({
      what: 'refusal after authorisation',
      write: () => this.store.markServedAsRefused({ id: entryId, reason }),
      context,
    });
    if (!changed) return false;
    this.events.refused({ request: changed, reason, at, servedAt: changed.at });
    return true;
  }
}
