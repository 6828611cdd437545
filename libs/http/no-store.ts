import type { RequestHandler } from 'express';

/** Answers no cache may keep: the admin API's, readiness. */
export const noStore: RequestHandler = (_req, res, next) => {
  res.set('Cache-Control', 'no-store');
  next();
};
