import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { LicensingError } from '../../libs/contracts/index.js';
import {
  configureApp,
  contentDisposition,
  errorHandler,
  ifRangeMatches,
  parseRange,
  safeContentType,
  sendData,
  unknownRoute,
} from '../../libs/http/index.js';
import type { Logger } from '../../libs/logging/index.js';
import { metrics } from '../../libs/observability/index.js';
import { ERROR_CODE_HEADER, ERROR_MESSAGE_HEADER } from '../../libs/transport/index.js';

import type { DownloadLogWriter } from './log.js';
import type { PackageStorage } from './storage.js';
import type { TicketSigner } from './tickets.js';

/** Passes package bytes on, counting them (download_bytes_total). */
function countedBytes(): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      metrics.downloadBytes.inc(chunk.length);
      done(null, chunk);
    },
  });
}

const badTicket = () =>
  new LicensingError('UNAUTHORIZED', 'The link is not valid or has expired.', { status: 403 });

function ticketParam(req: Request): string {
  const value = req.params.ticket;
  return typeof value === 'string' ? value : '';
}

/**
 * The download service's own HTTP port: package bytes go in and out here, never over the message
 * bus. Every route needs a ticket (a signed, short-lived URL) from the service's RPC answers, so
 * this port only serves what an RPC decision allowed.
 */
export function createDownloadApp(deps: {
  storage: PackageStorage;
  tickets: TicketSigner;
  logger: Logger;
  /** The download log, written through the same store as the RPC handlers'. */
  logWriter: DownloadLogWriter;
  maxUploadBytes: number;
}): Express {
  const { storage, tickets, logger } = deps;
  const app = express();
  configureApp(app, false, logger);
  /** Files being sent right now: a stream that outlives its client shows up here. */
  let transfers = 0;
  app.get('/health', (_req, res) => sendData(res, { status: 'ok', transfers }));

  // Management streams an upload here: the request body is the file.
  app.put('/uploads/:ticket', async (req, res) => {
    const ticket = tickets.verify(ticketParam(req), 'upload');
    if (!ticket) throw badTicket();
    const declared = Number(req.get('content-length'));
    if (Number.isFinite(declared) && declared > deps.maxUploadBytes) {
      throw new LicensingError(
        'PAYLOAD_TOO_LARGE',
        `The file is over the limit of ${deps.maxUploadBytes} bytes.`,
      );
    }
    const stored = await storage.put(ticket.key, req, {
      contentType: safeContentType(req.get('content-type')),
      maxBytes: deps.maxUploadBytes,
    });
    sendData(res, { object_key: ticket.key, ...stored });
  });

  // The gateway fetches a download here and relays it to the client (GET and HEAD).
  app.get('/objects/:ticket', async (req, res) => {
    const ticket = tickets.verify(ticketParam(req), 'object');
    if (!ticket) throw badTicket();
    // Everything before the first byte: stat, range, opening the object. A failure here is the
    // client's answer instead of the file (a JSON error, headers not yet sent).
    const open = async () => {
      const info = await storage.stat(ticket.key);
      if (!info) {
        throw new LicensingError('NOT_FOUND', 'The file of this version is missing from storage.');
      }
      const range = ifRangeMatches(req.get('if-range'), `"${ticket.sha256}"`, info.last_modified)
        ? parseRange(req.get('range'), info.size)
        : null;
      if (range === 'unsatisfiable') {
        res.set('Content-Range', `bytes */${info.size}`);
        throw new LicensingError(
          'RANGE_NOT_SATISFIABLE',
          `The requested range is outside the file of ${info.size} bytes.`,
        );
      }
      const start = range?.start ?? 0;
      const length = range ? range.end - range.start + 1 : info.size;
      const body = req.method === 'HEAD' ? null : await storage.read(ticket.key, start, length);
      return { info, range, length, body };
    };
    let opened: Awaited<ReturnType<typeof open>>;
    try {
      opened = await open();
    } catch (error) {
      // Spec 4.5: the download was logged as served when it was authorised; the client gets an
      // error instead of the file, so the entry becomes a refusal with the error's code.
      if (ticket.log_id !== null) {
        const reason = error instanceof LicensingError ? error.code : 'INTERNAL_ERROR';
        await deps.logWriter.servedBecameRefused({ entryId: ticket.log_id, reason });
      }
      throw error;
    }
    const { info, range, length, body } = opened;

    res.status(range ? 206 : 200);
    res.set({
      'Content-Type': ticket.content_type,
      'Content-Length': String(length),
      'Content-Disposition': contentDisposition(ticket.filename),
      'Accept-Ranges': 'bytes',
      ETag: `"${ticket.sha256}"`,
      'X-Checksum-SHA256': ticket.sha256,
      'Repr-Digest': `sha-256=:${Buffer.from(ticket.sha256, 'hex').toString('base64')}:`,
      'Last-Modified': info.last_modified.toUTCString(),
      'Cache-Control': 'no-store',
    });
    if (range) res.set('Content-Range', `bytes ${range.start}-${range.end}/${info.size}`);
    if (!body) {
      res.end();
      return;
    }
    transfers++;
    try {
      await pipeline(body, countedBytes(), res);
    } catch (error) {
      // The client went away, or storage failed mid-file: the connection is cut, so the
      // client sees a short body and can resume with Range.
      if (!res.writableFinished) res.destroy();
      if (!req.destroyed && (error as { code?: string }).code !== 'ERR_STREAM_PREMATURE_CLOSE') {
        logger.warn({ err: error }, 'serving a package failed');
      }
    } finally {
      transfers--;
    }
  });

  app.use(unknownRoute);
  // A HEAD answer has no body, so its error envelope never arrives: the code travels in a header
  // too, and the gateway answers a HEAD with the same refusal as the GET (RFC 9110 9.3.2).
  app.use((error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (!res.headersSent && error instanceof LicensingError) {
      res.set(ERROR_CODE_HEADER, error.code);
      res.set(ERROR_MESSAGE_HEADER, encodeURIComponent(error.message));
    }
    next(error);
  });
  app.use(errorHandler(logger));
  return app;
}
