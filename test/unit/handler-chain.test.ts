import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { handlerChain } from '../../libs/http/routes/handler-chain.js';

/**
 * A route's middleware run as one handler (libs/http/routes/handler-chain.ts): in order, each when the
 * one before it calls `next()`, and any error once to the app's error handling, as Express runs a
 * route's chain.
 */

const req = {} as Request;
const res = {} as Response;

/** Runs `handlers` as one chain; what reached the app's `next`, once the chain has settled. */
async function run(handlers: RequestHandler[]): Promise<{ ran: string[]; passed: unknown[] }> {
  const passed: unknown[] = [];
  const next = ((error?: unknown) => passed.push(error)) as NextFunction;
  handlerChain(handlers)(req, res, next);
  await new Promise((resolve) => setImmediate(resolve));
  return { ran: order.splice(0), passed };
}

const order: string[] = [];
const step =
  (name: string): RequestHandler =>
  (_req, _res, next) => {
    order.push(name);
    next();
  };

describe('a route chain', () => {
  it('runs its steps in order and passes on at the end', async () => {
    const { ran, passed } = await run([step('a'), step('b'), step('c')]);
    expect(ran).toEqual(['a', 'b', 'c']);
    expect(passed).toEqual([undefined]);
  });

  it('runs a later step only once the one before it has called next, even later', async () => {
    const later: RequestHandler = (_req, _res, next) => {
      order.push('waits');
      setTimeout(() => next(), 5);
    };
    handlerChain([later, step('after')])(req, res, () => order.push('end'));
    expect(order).toEqual(['waits']);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(order.splice(0)).toEqual(['waits', 'after', 'end']);
  });

  it('stops at a step that answers without calling next', async () => {
    const answers: RequestHandler = () => order.push('answers');
    const { ran, passed } = await run([step('a'), answers, step('never')]);
    expect(ran).toEqual(['a', 'answers']);
    expect(passed).toEqual([]);
  });

  it('gives an error passed to next to the app, and runs no later step', async () => {
    const refuses: RequestHandler = (_req, _res, next) => next(new Error('refused'));
    const { ran, passed } = await run([refuses, step('never')]);
    expect(ran).toEqual([]);
    expect(passed).toEqual([new Error('refused')]);
  });

  it('gives a thrown error to the app', async () => {
    const throws: RequestHandler = () => {
      throw new Error('thrown');
    };
    const { passed } = await run([step('a'), throws, step('never')]);
    expect(passed).toEqual([new Error('thrown')]);
  });

  it('gives the error of an async step that rejects to the app', async () => {
    const rejects: RequestHandler = async () => {
      await Promise.resolve();
      throw new Error('rejected');
    };
    const { passed } = await run([rejects, step('never')]);
    expect(passed).toEqual([new Error('rejected')]);
  });

  it('passes an error on once when a step reports it and then throws', async () => {
    const both: RequestHandler = (_req, _res, next) => {
      next(new Error('first'));
      throw new Error('second');
    };
    const { passed } = await run([both, step('never')]);
    expect(passed).toEqual([new Error('first')]);
  });

  it("passes Express's next('route') on as it is", async () => {
    const skips: RequestHandler = (_req, _res, next) => next('route');
    const { passed } = await run([skips, step('never')]);
    expect(passed).toEqual(['route']);
  });

  it('is the handler itself when there is one', () => {
    const only = step('only');
    expect(handlerChain([only])).toBe(only);
  });
});
