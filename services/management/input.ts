import type { Request } from 'express';
import { LicensingError } from '../../libs/contracts/index.js';
import { utf8Body } from '../../libs/http/index.js';

function invalid(message: string): LicensingError {
  return new LicensingError('INVALID_REQUEST', message);
}

/**
 * The JSON body, read as UTF-8 (bytes that are not UTF-8 are refused, never replaced). Anything
 * but application/json, or no body at all, is refused instead of being mistaken for `{}`.
 */
export function jsonBody(req: Request): unknown {
  const text = req.is('application/json') ? utf8Body(req) : '';
  if (text === '') {
    throw invalid('The request body must be a JSON object sent as application/json.');
  }
  const charset = /;\s*charset="?([^";\s]+)/i.exec(req.get('content-type') ?? '')?.[1];
  if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
    throw new LicensingError('UNSUPPORTED_MEDIA_TYPE', 'JSON bodies must be UTF-8.');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalid('The request body is not valid JSON.');
  }
}
