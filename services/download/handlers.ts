import { randomUUID } from 'node:crypto';
import type { QueryFilter } from 'mongoose';
import {
  LicensingError,
  type AuthorizeDownloadRequest,
  type AuthorizedDownload,
  type DownloadLogEntry,
  type HandlersOf,
} from '../../libs/contracts/index.js';
import type { Transport } from '../../libs/transport/index.js';
import { decideDownloadAccess } from './access.js';
import type { DownloadLogWriter } from './log.js';
import type { DownloadLogDocument, DownloadModels } from './models.js';
import type { PackageStorage } from './storage.js';
import type { TicketSigner } from './tickets.js';

/** The gateway fetches the file at once; a download URL is good for this long. */
export const DOWNLOAD_TICKET_TTL_MS = 60_000;
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

function logView(doc: DownloadLogDocument): DownloadLogEntry {
  return {
    id: doc._id.toString(),
    at: doc.at.toISOString(),
    product_id: doc.product_id,
    license_key: doc.license_key,
    identifier: doc.identifier,
    ip: doc.ip,
    outcome: doc.outcome,
    reason: doc.reason,
    file_id: doc.file_id,
    version: doc.version,
  };
}

export interface DownloadServiceDeps {
  models: DownloadModels;
  storage: PackageStorage;
  transport: Transport;
  tickets: TicketSigner;
  /** How the gateway and management reach this service's HTTP port. */
  baseUrl: string;
  log: DownloadLogWriter;
  startedAt: number;
}

/** RPC handlers of the download service: access decisions, upload URLs, objects, the log. */
export function downloadHandlers(deps: DownloadServiceDeps): HandlersOf<'download'> {
  const { DownloadLog } = deps.models;
  const { transport, log } = deps;
  const base = deps.baseUrl.replace(/\/+$/, '');

  /** Spec 4.5: the product's access rule, then the file the caller gets (4.4 rules). */
  async function decide(request: AuthorizeDownloadRequest) {
    const product = await transport.call('update-catalog.getProduct', { id: request.product_id });
    const keySent = request.license_key !== null;
    const coverage =
      request.license_key !== null && product.download_access !== 'account'
        ? await transport.call('license.coverage', {
            license_key: request.license_key,
            product_id: request.product_id,
            identifier: request.identifier,
          })
        : null;
    const decision = decideDownloadAccess({
      access: product.download_access,
      keySent,
      identifierSent: request.identifier !== null,
      coverage,
    });
    if (!decision.ok) throw decision.error;
    const { selection } = await transport.call('update-catalog.selectFile', {
      product_id: request.product_id,
      plan_id: decision.planId,
    });
    if (!selection) {
      throw new LicensingError('NOT_FOUND', 'This product has no file to download.');
    }
    return selection;
  }

  return {
    'download.health': async () => ({
      service: 'download',
      status: 'ok',
      uptime_seconds: Math.round((Date.now() - deps.startedAt) / 1000),
    }),

    'download.authorize': async (request, context): Promise<AuthorizedDownload> => {
      let selection;
      try {
        selection = await decide(request);
      } catch (error) {
        const reason = error instanceof LicensingError ? error.code : 'INTERNAL_ERROR';
        await log.refused(request, reason, context);
        throw error;
      }
      const { file, version } = selection;
      // Logged as served now; the byte port (or the gateway) turns the entry into a refusal
      // when the file does not reach the client after all (docs/api-decisions.md, The log).
      const logId = await log.served(
        request,
        { file_id: file.id, version: version.version },
        context,
      );
      const ticket = deps.tickets.issue(
        {
          kind: 'object',
          key: file.object_key,
          filename: file.filename,
          content_type: file.content_type,
          sha256: file.sha256,
          log_id: logId,
        },
        DOWNLOAD_TICKET_TTL_MS,
      );
      return {
        url: `${base}/objects/${ticket}`,
        filename: file.filename,
        size: file.size,
        sha256: file.sha256,
        content_type: file.content_type,
        version: version.version,
        log_id: logId,
      };
    },

    'download.logRefusal': async ({ entry_id, reason, ...request }, context) => ({
      logged:
        entry_id !== null
          ? await log.servedBecameRefused(entry_id, reason, context)
          : await log.refused(request, reason, context),
    }),

    'download.prepareUpload': async ({ filename }, context) => {
      // The ticket lets its holder write to the bucket; a caller that gave up gets none.
      context.beforeWrite();
      const objectKey = objectKeyFor(filename);
      const ticket = deps.tickets.issue({ kind: 'upload', key: objectKey }, UPLOAD_TICKET_TTL_MS);
      return { upload_url: `${base}/uploads/${ticket}`, object_key: objectKey };
    },

    'download.deleteObject': async ({ object_key }, context) => ({
      object_key,
      deleted: await deps.storage.remove(object_key, context),
    }),

    'download.listLog': async ({ product_id, refused, page, per_page }) => {
      const filter: QueryFilter<DownloadLogDocument> = {};
      if (product_id !== null) filter.product_id = product_id;
      if (refused !== null) filter.outcome = refused ? 'refused' : 'served';
      const [docs, total] = await Promise.all([
        DownloadLog.find(filter)
          .sort({ at: -1, _id: -1 })
          .skip((page - 1) * per_page)
          .limit(per_page)
          .lean<DownloadLogDocument[]>(),
        DownloadLog.countDocuments(filter),
      ]);
      return { entries: docs.map(logView), page, per_page, total };
    },
  };
}
