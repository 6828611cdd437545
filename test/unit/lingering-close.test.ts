import { createServer as createHttpServer, type Server } from 'node:http';
import { connect, createServer as createTcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import {
  closeLingering,
  lingerAfterAnswer,
  LINGER_BYTES,
} from '../../libs/http/lingering-close.js';

/**
 * The bounds of the lingering close (libs/http/lingering-close.ts), on bare servers: a
 * connection answered before its request has all arrived is read off for a while, so that the
 * client reads the answer (test/integration/http-edge.test.ts and the tests of npm start and of
 * separate processes check that), but never for long.
 */

const servers: Server[] = [];
afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections?.();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listening<S extends Server | ReturnType<typeof createTcpServer>>(
  server: S,
): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

const TOO_LARGE = JSON.stringify({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'Too large.' } });

/** The largest body the server below reads. */
const LIMIT_BYTES = 16 * 1024;

/**
 * A server that reads a body until it is past LIMIT_BYTES, then stops reading it and answers
 * 413, as a route with a body limit does.
 */
async function refusingServer(): Promise<number> {
  const server = createHttpServer((req, res) => {
    let read = 0;
    const onData = (chunk: Buffer) => {
      read += chunk.length;
      if (read <= LIMIT_BYTES) return;
      req.off('data', onData);
      req.pause();
      lingerAfterAnswer(req, res);
      res.writeHead(413, { 'Content-Type': 'application/json' }).end(TOO_LARGE);
    };
    req.on('data', onData);
  });
  servers.push(server);
  return listening(server);
}

test('a client that goes on sending after its answer is cut off, well before its body ends', async () => {
  const port = await refusingServer();
  const size = 4 * LINGER_BYTES;
  // Its side stays open when the server's is closed: only the server's bound stops it sending.
  const client = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  let answer = '';
  client.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
  client.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${size}\r\n\r\n`);
  const written = await new Promise<number>((resolve) => {
    let sent = 0;
    client.on('error', () => resolve(sent));
    client.on('close', () => resolve(sent));
    const chunk = Buffer.alloc(64 * 1024, 'a');
    const more = () => {
      while (sent < size && !client.destroyed) {
        sent += chunk.length;
        if (!client.write(chunk)) return void client.once('drain', more);
      }
      resolve(sent);
    };
    more();
  });
  expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  expect(answer).toMatch(/\r\nConnection: close\r\n/i);
  expect(written).toBeLessThan(size);
  client.destroy();
});

test('a connection whose client sends nothing more is closed all the same', async () => {
  let closed: Promise<void> = new Promise(() => {});
  const server = createTcpServer({ allowHalfOpen: true }, (socket: Socket) => {
    closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.write('refused');
    closeLingering(socket, socket, { ms: 50, bytes: LINGER_BYTES });
  });
  const port = await listening(server);
  // The client keeps its side open and silent: only the server's bound can end the connection.
  const client = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
  client.on('error', () => {});
  const received = await new Promise<string>((resolve) => {
    let text = '';
    client.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    client.once('end', () => resolve(text));
  });
  expect(received).toBe('refused');
  await closed;
  client.destroy();
  await new Promise((resolve) => server.close(resolve));
});
