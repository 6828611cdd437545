import { errorCodes, type ErrorCode } from '../../libs/contracts/index.js';
import type { Logger } from '../../libs/logging/index.js';
import type { PublishDomainEvent } from '../../libs/transport/domain-events.js';
import type { LoggedRequest } from './download-log/stores.js';

/**
 * The download service's domain events: the entries of the download log (spec 4.5), said by the
 * log writer (download-log/log.ts) once the store has taken each, and never for an entry it failed
 * to write.
 */
export interface DownloadEvents {
  /** A served entry was written: the download was authorised, for this file of this version. */
  served(event: {
    request: LoggedRequest & { product_id: number };
    version: string;
    filename: string;
    at: Date;
  }): void;
  /**
   * A refused entry was written with the error code the client got; or a served entry became a
   * refusal, its bytes not having reached the client (the byte port's error, or the gateway's
   * report with `entry_id`): that download is `download.refused` too, after its
   * `download.served`.
   */
  refused(event: {
    request: LoggedRequest;
    reason: string;
    at: Date;
    /** When the entry was written as served, for a served entry that became a refusal. */
    servedAt: Date | null;
  }): void;
}

const isErrorCode = (reason: string): reason is ErrorCode =>
  (errorCodes as readonly string[]).includes(reason);

/** The events as domain events (libs/contracts/events/domain-events.ts), each handed to `publish`. */
export function publishedDownloadEvents(
  publish: PublishDomainEvent,
  logger: Logger,
): DownloadEvents {
  return {
    served: ({ request, version, filename, at }) =>
      publish(
        'download.served',
        {
          license_key: request.license_key,
          product_id: request.product_id,
          identifier: request.identifier,
          ip: request.ip,
          version,
          filename,
        },
        at,
      ),
    refused: ({ request, reason, at }) => {
      // `download.logRefusal` takes any upper-case reason, but the event says which error code
      // the client got; every caller in this system sends one, so another is only logged.
      if (!isErrorCode(reason)) {
        logger.warn({ reason }, 'a download refusal with no error code is not published');
        return;
      }
      publish(
        'download.refused',
        {
          license_key: request.license_key,
          product_id: request.product_id,
          identifier: request.identifier,
          ip: request.ip,
          reason,
        },
        at,
      );
    },
  };
}
