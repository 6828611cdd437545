import type { NextFunction, Request, Response } from 'express';
import {
  IdText,
  LicensingError,
  logValue,
  type LogRefusalRequest,
} from '../../../libs/contracts/index.js';
import type { Logger } from '../../../libs/logging/index.js';
import type { Transport } from '../../../libs/transport/index.js';
import { clientIp } from '../requests/client-ip.js';

/** Reporting a refusal to the download log may delay the client's error answer this much. */
const LOG_REPORT_TIMEOUT_MS = 1000;
/** Reports in flight at once; beyond this (a flood of refused requests) they are dropped. */
const MAX_LOG_REPORTS_IN_FLIGHT = 64;

/**
 * Where a download request stands, for the refusal report below: still in the gateway, decided
 * by the download service (which logs its own refusals), or relaying an authorised download
 * (logged as served, under `logId`).
 */
export type DownloadStage =
  { stage: 'gateway' } | { stage: 'decided' } | { stage: 'relaying'; logId: string | null };

function stageOf(res: Response): DownloadStage {
  const stage = res.locals.download as DownloadStage | undefined;
  return stage ?? { stage: 'gateway' };
}

/** The error code the client gets for `error` (libs/http maps the rest to INTERNAL_ERROR). */
function refusalReason(error: unknown): string {
  if (error instanceof LicensingError) return error.code;
  if (error instanceof URIError) return 'INVALID_REQUEST';
  return 'INTERNAL_ERROR';
}

/**
 * The request as sent, for the log of a request the gateway refused: read leniently (the strict
 * parser may just have refused it), the first value of each field, cut to 255 characters
 * (`logValue`). A path that names no valid product id logs null.
 */
function sentRequest(req: Request): Omit<LogRefusalRequest, 'entry_id' | 'reason'> {
  const question = req.originalUrl.indexOf('?');
  const query = new URLSearchParams(question === -1 ? '' : req.originalUrl.slice(question + 1));
  // The path below the downloads prefix, `/<product_id>`: route parameters are not set here.
  const productId = IdText.safeParse(req.path.split('/')[1] ?? '');
  return {
    product_id: productId.success ? productId.data : null,
    license_key: logValue(query.get('license_key') || query.get('dlid') || query.get('amp;dlid')),
    identifier: logValue(query.get('identifier')),
    ip: clientIp(req),
  };
}

/**
 * Spec 4.5: every refusal is in the download log with its reason. `download.authorize` logs the
 * ones it decides; this error handler, mounted on the downloads prefix, reports the others to
 * the download service: those of the gateway itself (the per-IP rate limit, a malformed path or
 * query), and a download that was authorised (logged as served) but failed before its first byte
 * reached the client.
 */
export function reportDownloadRefusals(transport: Transport, logger: Logger) {
  let reportsInFlight = 0;
  return async (error: unknown, req: Request, res: Response, next: NextFunction) => {
    const stage = stageOf(res);
    // Not reported: a failure mid-file (the connection is cut; the file was served, partly), a
    // refusal decided by download.authorize (the download service logged it), and a client
    // that went away before the answer (nothing was refused to anyone).
    const clientGone = req.socket.destroyed;
    if (!res.headersSent && !clientGone && stage.stage !== 'decided') {
      if (reportsInFlight >= MAX_LOG_REPORTS_IN_FLIGHT) {
        logger.warn('too many download refusals at once: one is not logged');
      } else {
        reportsInFlight++;
        const reason = refusalReason(error);
        const report: LogRefusalRequest = {
          ...sentRequest(req),
          // An authorised download was logged as served: that entry becomes the refusal.
          entry_id: stage.stage === 'relaying' ? stage.logId : null,
          reason,
        };
        try {
          await transport.call('download.logRefusal', report, {
            timeoutMs: LOG_REPORT_TIMEOUT_MS,
          });
        } catch (failure) {
          // Logging is best-effort: the client still gets its answer.
          logger.warn({ err: failure, reason }, 'a download refusal could not be logged');
        } finally {
          reportsInFlight--;
        }
      }
    }
    next(error);
  };
}
