import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A webhook POST as a receiver got it. */
export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The status the receiver answered. */
  answered: number;
}

/**
 * A receiver of webhooks on 127.0.0.1 (a system started with WEBHOOK_ALLOW_PRIVATE_URLS=true
 * sends to it): records every request and answers each path with the status `statusFor` gives,
 * 200 unless a test says otherwise.
 */
export interface WebhookReceiver {
  /** The receiver's URL of `path`. */
  url(path: string): string;
  readonly received: ReceivedWebhook[];
  /** The requests to `path` so far. */
  to(path: string): ReceivedWebhook[];
  /** Answers `path` with `status` from now on. */
  answer(path: string, status: number): void;
  /** Waits until `path` has had `count` requests (or more), at most `timeoutMs`. */
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const statuses = new Map<string, number>();
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const answered = statuses.get(path) ?? 200;
      received.push({
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        answered,
      });
      res.writeHead(answered, { 'content-type': 'text/plain' });
      res.end(answered < 300 ? 'ok' : 'busy: try again later');
      for (const wake of waiters) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const to = (path: string) => received.filter((request) => request.path === path);
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received,
    to,
    answer: (path, status) => statuses.set(path, status),
    waitFor: (path, count, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (to(path).length < count) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(to(path));
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`${path} had ${to(path).length} of ${count} webhooks in time`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
