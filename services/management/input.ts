import type { Request } from 'express';
import type { z } from 'zod';
import { LicensingError } from '../../libs/contracts/index.js';

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
 * The parsed JSON body. express.json() only reads application/json, so anything else (or no
 * body at all) is refused here instead of being mistaken for an empty object.
 */
export function jsonBody(req: Request): unknown {
  if (!req.is('application/json') || req.body === undefined) {
    throw invalid('The request body must be a JSON object sent as application/json.');
  }
  return req.body;
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
