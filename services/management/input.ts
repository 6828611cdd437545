import type { Request } from 'express';
import type { z } from 'zod';
import { LicensingError } from '../../libs/contracts/index.js';
import { utf8Body } from '../../libs/http/index.js';

/** Validation at the edge: every failure is a 400 INVALID_REQUEST naming the field. */

function invalid(message: string): LicensingError {
  return new LicensingError('INVALID_REQUEST', message);
}

/** `bundle_items[2]`, `title`; the whole body when the issue has no path. */
function fieldName(path: readonly PropertyKey[]): string {
  let name = '';
  for (const part of path) {
    name += typeof part === 'number' ? `[${part}]` : `${name === '' ? '' : '.'}${String(part)}`;
  }
  return name === '' ? 'request body' : name;
}

function describe(issue: z.core.$ZodIssue | undefined): string {
  if (!issue) return 'request body: invalid';
  const where = fieldName(issue.path);
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.join(', ');
    return issue.path.length === 0
      ? `unknown field${issue.keys.length > 1 ? 's' : ''}: ${keys}`
      : `${where}: unknown field${issue.keys.length > 1 ? 's' : ''}: ${keys}`;
  }
  // Zod's own messages start with a capital; ours ("must not be empty") do not.
  const message = issue.message.charAt(0).toLowerCase() + issue.message.slice(1);
  return `${where}: ${message}`;
}

export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw invalid(describe(parsed.error.issues[0]));
  return parsed.data;
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

/** A path id: a positive safe integer written in plain decimal digits. */
export function pathId(req: Request, name = 'id'): number {
  const raw = req.params[name];
  const id = typeof raw === 'string' && /^[1-9][0-9]{0,15}$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(id)) throw invalid(`${name} in the path must be a positive integer.`);
  return id;
}

/** A decoded path parameter (Express URL-decodes it); validated by the caller's schema. */
export function pathText(req: Request, name: string): string {
  const raw = req.params[name];
  return typeof raw === 'string' ? raw : '';
}
