import { randomUUID } from 'node:crypto';
import {
  LicensingError,
  decideDownloadAccess,
  decideEntitlementAccess,
  downloadEntitlements,
  type AuthorizeDownloadRequest,
  type LicenseCoverage,
  type RefusedLicenseStatus,
  orderOf,
  refusal,
} from '../../libs/contracts/index.js';
import type { CatalogProducts } from '../../libs/cache/index.js';
import type { SparkleKey } from '../../libs/config/index.js';
import type { ServedHandlers, Transport } from '../../libs/transport/index.js';
import { contentDisposition } from '../../libs/http/file-answers.js';
import { fileToDownload } from './access.js';
import type { DownloadCounts } from './daily-counts.js';
import type { DownloadLogWriter } from './download-log/log.js';
import { signStoredPackage } from './sparkle-signing.js';
import type { PackageStorage } from './storage.js';
import type { DownloadLogFilters, DownloadLogStore } from './download-log/stores.js';
import type { TicketSigner } from './uploads/tickets.js';
import { authorizedDownloadView, logBatchView, logPageView } from './views.js';

/** The gateway fetches the file at once; a download URL is good for this long to start. */
export const DOWNLOAD_URL_TTL_SECONDS = 60;
/** Management starts sending the upload at once; the URL must be used within this time. */
export const UPLOAD_TICKET_TTL_MS = 15 * 60_000;

/** `packages/<uuid>/<name>`: unique, and still readable in the bucket. */
export function objectKeyFor(filename: string): string {
  const safe = filename
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._-]+/, '')
    .slice(-100);
  return `packages/${randomUUID()}/${safe || 'package'}`;
}

export interface DownloadDeps {
  /** The download log, read for the admin list. */
  downloadLog: DownloadLogStore;
  /** Writes the download log, bounded in time (shared with the byte port). */
  logWriter: DownloadLogWriter;
  /** Package storage: objects are looked at, signed for reading, read to sign and removed here. */
  storage: Pick<PackageStorage, 'remove' | 'stat' | 'readUrl' | 'read'>;
  /** What the handlers ask of the update catalog and the license service. */
  transport: Pick<Transport, 'call'>;
  /** The catalog's products (their access rules), kept between announced changes. */
  products: Pick<CatalogProducts, 'get'>;
  tickets: TicketSigner;
  /** How the gateway and management reach this service's HTTP port. */
  baseUrl: string;
  /** The downloads served and refused per day, counted as the log's entries are written. */
  counts: DownloadCounts;
  /** The seller's Sparkle key (SPARKLE_PRIVATE_KEY, or SPARKLE_PRIVATE_KEY_FILE), if any. */
  sparkleKey: SparkleKey | undefined;
  /** The largest package read back to be signed (MAX_UPLOAD_BYTES). */
  maxSignBytes: number;
}

/** The license's status as the log keeps it: `invalid` for an unknown key, null for no key. */
function coverageStatus(coverage: LicenseCoverage | null): RefusedLicenseStatus | null {
  if (coverage === null) return null;
  return coverage.found ? coverage.status : 'invalid';
}

/** RPC handlers of the download service: access decisions, upload URLs, objects, the log. */
export function createDownloadHandlers({
  downloadLog,
  logWriter,
  storage,
  transport,
  products,
  tickets,
  baseUrl,
  counts,
  sparkleKey,
  maxSignBytes,
}: DownloadDeps): ServedHandlers<'download'> {
  const base = baseUrl.replace(/\/+$/, '');

  /**
   * Spec 4.5: the product's access rule, then the file the caller gets (4.4 rules). A product
   * that does not exist is the catalog's NOT_FOUND, thrown by the call.
   */
  async function decide(request: AuthorizeDownloadRequest) {
    const product = await products.get(request.product_id);
    const coverage =
      request.license_key !== null && product.download_access !== 'account'
        ? await transport.call('license.coverage', {
            license_key: request.license_key,
            product_id: request.product_id,
            identifier: request.identifier,
          })
        : null;
    const access = decideDownloadAccess({
      access: product.download_access,
      keySent: request.license_key !== null,
      identifierSent: request.identifier !== null,
      coverage,
    });
    // The log tells a refused revoked license from an unknown key (docs/api-decisions.md).
    if (!access.ok) return { ...access, licenseStatus: coverageStatus(coverage) };
    const entitlements = downloadEntitlements(coverage);
    const { selection } = await transport.call('update-catalog.selectFile', {
      product_id: request.product_id,
      plan_id: access.planId,
      entitlements,
      file_id: request.file?.id ?? null,
      channel: request.channel,
      updates_until: access.updatesUntil,
      rollout:
        request.license_key !== null && coverage?.covers
          ? { license_key: request.license_key, identifier: coverage.identifier }
          : null,
    });
    const chosen = fileToDownload(selection, request.file);
    if (!chosen.ok) return chosen;
    const entitled = decideEntitlementAccess(chosen.selection, entitlements);
    return entitled.ok ? chosen : { ...entitled, licenseStatus: coverageStatus(coverage) };
  }

  return {
    'download.authorize': async (request, context) => {
      let decision;
      try {
        decision = await decide(request);
      } catch (error) {
        // Spec 4.5: every refusal is logged with the code the client gets, this one too. The
        // answer does not wait for the refusals' batch to be written (docs/performance.md).
        const reason = error instanceof LicensingError ? error.code : 'INTERNAL_ERROR';
        void logWriter.refused({ request, reason, context });
        throw error;
      }
      if (!decision.ok) {
        void logWriter.refused({
          request,
          reason: decision.refusal.code,
          licenseStatus: 'licenseStatus' in decision ? decision.licenseStatus : null,
          context,
        });
        throw LicensingError.from(decision.refusal);
      }
      const { file, version } = decision.selection;
      // Signed before the log entry: a store that sends no client to itself refuses redirect mode
      // (docs/operations.md), a refusal logged as such rather than a download served.
      const url = await storage
        .readUrl(file.object_key, {
          disposition: contentDisposition(file.filename),
          ttlSeconds: DOWNLOAD_URL_TTL_SECONDS,
          forClients: request.delivery === 'redirect',
          method: request.delivery === 'redirect' ? request.method : 'GET',
        })
        .catch((error: unknown) => {
          void logWriter.refused({ request, reason: 'INTERNAL_ERROR', context });
          throw error;
        });
      // Logged as served now; this handler (or the gateway) turns the entry into a refusal when
      // the file does not reach the client after all (docs/api-decisions.md, The log). The
      // object's size and date come from the store, which may lack it (a failed clean-up): the
      // two are asked at once, as both are on the way to every download's first byte.
      const [logId, looked] = await Promise.all([
        logWriter.served({
          request,
          file: { file_id: file.id, version: version.version, filename: file.filename },
          context,
        }),
        storage.stat(file.object_key).then(
          (info) => ({ info }),
          (error: unknown) => ({ error }),
        ),
      ]);
      if ('error' in looked) {
        if (logId !== null) {
          await logWriter.servedBecameRefused({
            entryId: logId,
            reason: 'INTERNAL_ERROR',
            context,
          });
        }
        throw looked.error;
      }
      const { info } = looked;
      if (!info) {
        if (logId !== null) {
          await logWriter.servedBecameRefused({ entryId: logId, reason: 'NOT_FOUND', context });
        }
        throw new LicensingError('NOT_FOUND', 'The file of this version is missing from storage.');
      }
      return authorizedDownloadView({
        selection: { ...decision.selection, file: { ...file, size: info.size } },
        url,
        lastModified: info.last_modified,
        logId,
      });
    },

    'download.logRefusal': async ({ entry_id, reason, ...request }, context) => {
      if (entry_id !== null) {
        return {
          logged: await logWriter.servedBecameRefused({ entryId: entry_id, reason, context }),
        };
      }
      // A new refusal joins the next batch: the gateway's answer to its client does not wait.
      void logWriter.refused({ request, reason, context });
      return { logged: true };
    },

    'download.prepareUpload': async ({ filename }, context) => {
      // The ticket lets its holder write to the bucket; a caller that gave up gets none.
      context.beforeWrite();
      const objectKey = objectKeyFor(filename);
      const ticket = tickets.issue({ kind: 'upload', key: objectKey }, UPLOAD_TICKET_TTL_MS);
      return { upload_url: `${base}/uploads/${ticket}`, object_key: objectKey };
    },

    'download.deleteObject': async ({ object_key }, context) => ({
      object_key,
      deleted: await storage.remove(object_key, context),
    }),

    'download.signPackage': async ({ object_key }) => ({
      signature: await signStoredPackage(
        { storage, sparkleKey, maxBytes: maxSignBytes },
        object_key,
      ),
    }),

    'download.listLog': async ({ product_id, refused, from, to, sort, page, per_page }) => {
      const filters = logFilters({ product_id, refused, from, to });
      // What this replica has refused so far is listed too.
      await logWriter.flush();
      const { entries, total } = await downloadLog.list({
        ...filters,
        order: orderOf(sort),
        page,
        per_page,
      });
      return logPageView({ entries, total, page, per_page });
    },

    'download.dailyCounts': async ({ product_id, from, to }) => {
      // The refusals this replica still holds are counted once written.
      await logWriter.flush();
      return { days: await counts.totals({ from, to, productId: product_id }) };
    },
    'download.exportLog': async ({ product_id, refused, from, to, sort, after, limit }) => {
      const filters = logFilters({ product_id, refused, from, to });
      if (after === null) await logWriter.flush();
      const { entries, next } = await downloadLog.scan({
        ...filters,
        order: orderOf(sort),
        after,
        limit,
      });
      return logBatchView({ entries, next });
    },
  };
}

/** The filters of an admin's view of the log; a range that ends before it starts is refused. */
function logFilters(request: {
  product_id: number | null;
  refused: boolean | null;
  from: string | null;
  to: string | null;
}): DownloadLogFilters {
  const from = request.from === null ? null : new Date(request.from);
  const to = request.to === null ? null : new Date(request.to);
  if (from !== null && to !== null && from.getTime() >= to.getTime()) {
    throw LicensingError.from(refusal('INVALID_REQUEST', 'from must be earlier than to.'));
  }
  return { product_id: request.product_id, refused: request.refused, from, to };
}
