import { Types } from 'mongoose';
import { logValue, type CallContext } from '../../libs/contracts/index.js';
import type { Logger } from '../../libs/logging/index.js';
import type { DownloadLogDocument, DownloadModels } from './models.js';

/** Writing the log must never hold up the client's answer for long (docs/api-decisions.md). */
const LOG_WRITE_TIMEOUT_MS = 2000;

type Request = Pick<DownloadLogDocument, 'product_id' | 'license_key' | 'identifier' | 'ip'>;

/**
 * The download log (spec 4.5): one entry per download request, `served` or `refused` with the
 * error code the client got as its reason. Every write is bounded in time and never throws: the
 * answer to the client does not depend on the log. The one exception: a write for an RPC call
 * whose deadline has passed is not made, and the context's error is thrown, as for every write
 * of a call its caller gave up on (docs/architecture.md).
 */
export class DownloadLogWriter {
  constructor(
    private readonly models: DownloadModels,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  private async bounded<T>(
    what: string,
    write: () => Promise<T>,
    context: CallContext | undefined,
  ): Promise<T | null> {
    context?.beforeWrite();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out`)), LOG_WRITE_TIMEOUT_MS);
    });
    try {
      return await Promise.race([write(), timeout]);
    } catch (error) {
      this.logger.error({ err: error }, `could not write the download log (${what})`);
      return null;
    } finally {
      clearTimeout(timer);
    }
  }

  private entry(request: Request) {
    return {
      at: this.clock(),
      product_id: request.product_id,
      license_key: logValue(request.license_key),
      identifier: logValue(request.identifier),
      ip: request.ip,
    };
  }

  /** A download allowed by `download.authorize`; answers the entry id (null if not written). */
  async served(
    request: Request,
    file: { file_id: number; version: string },
    context?: CallContext,
  ): Promise<string | null> {
    const created = await this.bounded(
      'served',
      () =>
        this.models.DownloadLog.create({
          ...this.entry(request),
          outcome: 'served',
          reason: null,
          ...file,
        }),
      context,
    );
    return created ? created._id.toHexString() : null;
  }

  /** A new refused entry, with the error code the client got. */
  async refused(request: Request, reason: string, context?: CallContext): Promise<boolean> {
    const created = await this.bounded(
      'refused',
      () =>
        this.models.DownloadLog.create({
          ...this.entry(request),
          outcome: 'refused',
          reason,
          file_id: null,
          version: null,
        }),
      context,
    );
    return created !== null;
  }

  /**
   * A download that was logged as served when it was authorised, but whose bytes did not reach
   * the client (a bad range, an object missing from storage, a failure before the first byte):
   * the entry becomes a refusal with the reason, keeping the file and version it was for. An
   * entry that is already a refusal is left alone.
   */
  async servedBecameRefused(
    entryId: string,
    reason: string,
    context?: CallContext,
  ): Promise<boolean> {
    if (!Types.ObjectId.isValid(entryId)) return false;
    const result = await this.bounded(
      'refusal after authorisation',
      () =>
        this.models.DownloadLog.updateOne(
          { _id: new Types.ObjectId(entryId), outcome: 'served' },
          { $set: { outcome: 'refused', reason } },
        ),
      context,
    );
    return (result?.modifiedCount ?? 0) > 0;
  }
}
