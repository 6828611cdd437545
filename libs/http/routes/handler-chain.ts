import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * A route's middleware and handler as one Express handler: each runs when the one before it calls
 * `next()`, an error (passed to `next`, thrown, or a rejected promise) goes to the app's error
 * handling at once, and the end of the chain passes on as Express would. Express would walk the
 * steps through a layer each, work a route's six steps on the public API's hot paths do not need
 * (docs/performance.md, "The gateway alone: where its floor is").
 */
export function handlerChain(handlers: readonly RequestHandler[]): RequestHandler {
  if (handlers.length === 1) return handlers[0]!;
  return (req: Request, res: Response, next: NextFunction) => {
    let index = 0;
    let failed = false;
    const fail = (error: unknown) => {
      // A step that both reports an error and throws is passed on once.
      if (failed) return;
      failed = true;
      next(error);
    };
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null && error !== false) return fail(error);
      const handler = handlers[index++];
      if (handler === undefined) return next();
      try {
        const result: unknown = handler(req, res, step);
        if (result instanceof Promise) result.then(undefined, fail);
      } catch (thrown) {
        fail(thrown);
      }
    };
    step();
  };
}
