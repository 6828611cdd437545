import express, { type Express, type Request } from 'express';
import { LicensingError } from '../../../libs/contracts/index.js';
import {
  configureApp,
  declaredLength,
  errorHandler,
  refuseUnreadBody,
  safeContentType,
  sendData,
  unknownRoute,
} from '../../../libs/http/index.js';
import type { Logger } from '../../../libs/logging/index.js';
import type { PackageStorage } from '../storage.js';
import type { TicketSigner } from './tickets.js';

const badTicket = () =>
  new LicensingError('UNAUTHORIZED', 'The link is not valid or has expired.', { status: 403 });

function ticketParam(req: Request): string {
  const value = req.params.ticket;
  return typeof value === 'string' ? value : '';
}

/**
 * The download service's own HTTP port: uploads come in here, never over the message bus (the
 * gateway reads downloads from the store itself, on URLs the RPC answers presigned). Every route
 * needs a ticket (a signed, short-lived URL) from the service's RPC answers, so this port only
 * takes what an RPC decision allowed.
 */
export function createDownloadApp(deps: {
  storage: PackageStorage;
  tickets: TicketSigner;
  logger: Logger;
  maxUploadBytes: number;
}): Express {
  const { storage, tickets, logger } = deps;
  const app = express();
  configureApp(app, false, logger);
  app.get('/health', (_req, res) => sendData(res, { status: 'ok' }));

  // Management streams an upload here: the request body is the file.
  app.put('/uploads/:ticket', async (req, res) => {
    const ticket = tickets.verify(ticketParam(req), 'upload');
    if (!ticket) throw badTicket();
    const declared = declaredLength(req);
    if (declared !== undefined && declared > deps.maxUploadBytes) {
      throw refuseUnreadBody(
        res,
        new LicensingError(
          'PAYLOAD_TOO_LARGE',
          `The file is over the limit of ${deps.maxUploadBytes} bytes.`,
        ),
      );
    }
    const stored = await storage
      .put(ticket.key, req, {
        contentType: safeContentType(req.get('content-type')),
        maxBytes: deps.maxUploadBytes,
      })
      .catch((error: unknown) => {
        // Refused mid-file (too large): the rest is not read, and the answer closes the connection.
        if (!req.complete && error instanceof LicensingError) throw refuseUnreadBody(res, error);
        throw error;
      });
    sendData(res, { object_key: ticket.key, ...stored });
  });

  app.use(unknownRoute);
  app.use(errorHandler(logger));
  return app;
}
