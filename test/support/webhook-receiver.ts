import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request a receiver got: its webhook headers and its body. */
export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  headers: Record<string, string>;
  body: string;
  at: number;
}

/**
 * What a receiver answers a request with: a status, `hang` (no answer at all), or a status once
 * the promise gives it (the request is held open until then).
 */
export type Answer = number | 'hang' | Promise<number>;

/**
 * A webhook endpoint on the loopback that records every request and answers as told: by default
 * 204, or what `answer` says for each request in turn.
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  private readonly waiters: Array<() => void> = [];
  private readonly hung = new Set<http.ServerResponse>();
  private server!: http.Server;
  answer: (request: ReceivedWebhook, index: number) => Answer = () => 204;

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    receiver.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const header = (name: string) => String(req.headers[name] ?? '');
        const got: ReceivedWebhook = {
          id: header('webhook-id'),
          timestamp: header('webhook-timestamp'),
          signature: header('webhook-signature'),
          headers: Object.fromEntries(
            Object.entries(req.headers).map(([key, value]) => [key, String(value)]),
          ),
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        receiver.received.push(got);
        const answer = receiver.answer(got, receiver.received.length - 1);
        const send = (status: number) =>
          res.writeHead(status, { 'content-type': 'text/plain' }).end(`answered ${status}`);
        if (answer === 'hang') receiver.hung.add(res);
        else if (typeof answer === 'number') send(answer);
        else {
          receiver.hung.add(res);
          void answer.then((status) => {
            receiver.hung.delete(res);
            if (!res.destroyed) send(status);
          });
        }
        for (const wake of receiver.waiters.splice(0)) wake();
      });
    });
    await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  /** Waits until `done` holds of what was received, or fails after `ms`. */
  async waitFor(done: (received: ReceivedWebhook[]) => boolean, ms = 30_000): Promise<void> {
    const until = Date.now() + ms;
    while (!done(this.received)) {
      if (Date.now() > until) {
        throw new Error(`the receiver got ${this.received.length} requests, not what was awaited`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  async stop(): Promise<void> {
    for (const res of this.hung) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
