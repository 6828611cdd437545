import type { Server } from 'node:http';
import type { Express } from 'express';

/**
 * The frame of the benchmark's helper processes (database, object store, bare Express, RPC floor): start,
 * print one JSON line describing what was started, and stop on SIGTERM, SIGINT or when the
 * benchmark's IPC channel closes.
 */
export function runHelper(start: () => Promise<{ info: object; stop: () => Promise<void> }>): void {
  let stop: (() => Promise<void>) | undefined;
  let stopping = false;
  const shutdown = () => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(1), 10_000).unref();
    (stop ?? (async () => {}))().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  process.on('disconnect', shutdown);
  start().then(
    (started) => {
      stop = started.stop;
      console.log(JSON.stringify({ ready: true, ...started.info }));
      if (stopping) shutdown();
    },
    (error: unknown) => {
      console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
      process.exit(1);
    },
  );
}

/** Serves `app` on a free loopback port; its URL, and how to stop it (connections closed). */
export async function listenOnLoopback(
  app: Express,
): Promise<{ url: string; close: () => Promise<void> }> {
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(0, '127.0.0.1', (error?: Error) =>
      error ? reject(error) : resolve(listening),
    );
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    url: `http://127.0.0.1:${address.port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
