import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

const CUSTOMER = /^\/customers\/([^/?]+)(?:\?|$)/;

/** How the fake answers for now: as Paddle does, with Paddle's own failure, or not at all. */
export type FakePaddleMood = 'answering' | 'failing' | 'silent';

/**
 * Paddle Billing's API on loopback, as far as the stores service reads it, answered as Paddle's
 * API reference says: `GET /customers/{customer_id}` gives `{"data": <customer>, "meta":
 * {"request_id"}}` for the customers given, to the bearer API key `apiKey` alone. A request
 * without a key is refused `403 authentication_missing`, another key `403 invalid_token`, an
 * unknown customer or path `404 not_found`, each as `{"error": {type, code, detail,
 * documentation_url}, "meta": …}`. Failing, it answers `500 internal_error` (`api_error`);
 * silent, it takes the request and never answers.
 */
export async function fakePaddleApi(apiKey: string, customers: Record<string, unknown>) {
  const seen: Array<{ url: string; authorization: string | undefined }> = [];
  let mood: FakePaddleMood = 'answering';
  let requests = 0;
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const url = req.url ?? '';
    seen.push({ url, authorization: req.headers.authorization });
    // Silent: the request is taken and left unanswered, until the fake closes its socket.
    if (mood === 'silent') return;
    const meta = { request_id: `00000000-0000-4000-8000-${String(++requests).padStart(12, '0')}` };
    const answer = (status: number, body: object) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ ...body, meta }));
    };
    const error = (status: number, type: string, code: string, detail: string) =>
      answer(status, {
        error: {
          type,
          code,
          detail,
          documentation_url: `https://developer.paddle.com/errors/shared/${code}`,
        },
      });
    if (mood === 'failing') {
      return error(500, 'api_error', 'internal_error', 'An internal error has occurred.');
    }
    const authorization = req.headers.authorization;
    if (authorization === undefined) {
      return error(
        403,
        'request_error',
        'authentication_missing',
        'Authentication header missing.',
      );
    }
    if (authorization !== `Bearer ${apiKey}`) {
      return error(403, 'request_error', 'invalid_token', 'Invalid or revoked API key.');
    }
    const id = CUSTOMER.exec(url)?.[1];
    const customer = req.method === 'GET' && id !== undefined ? customers[id] : undefined;
    if (customer === undefined) {
      return error(404, 'request_error', 'not_found', `Entity ${id ?? url} not found`);
    }
    answer(200, { data: customer });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    /** Its address, as PADDLE_API_URL names it. */
    url: `http://127.0.0.1:${port}`,
    /** The requests it was sent: their path and query, and the authorization they carried. */
    seen,
    /** Answers from now on as Paddle does, with Paddle's failure, or not at all. */
    turn(next: FakePaddleMood) {
      mood = next;
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
