import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex, Readable } from 'node:stream';

/**
 * The lingering close of a connection whose request was answered before it had all arrived (a
 * body refused by its size, a request Node's parser refused). Closing a socket while bytes it
 * received are still unread makes the kernel reset the connection, and a client still sending
 * its body may then lose the answer it was sent. So the writing side is closed first (the answer,
 * then FIN), what the client still sends is read and dropped, and the connection is closed once
 * the client has sent all it meant to, or has closed its side, or after LINGER_BYTES more or
 * LINGER_MS, whichever comes first: no connection is held open for long, nothing refused is kept.
 */

/** How long what the client still sends is read off, at most. */
export const LINGER_MS = 5000;
/**
 * How much of it is read off, at most: past this the connection is closed, reset or not. Much of
 * it may be in the kernel's buffers already when the answer goes out, and is then read within
 * microseconds: a bound of 1 MiB would cut a client sending a 2 MB body on a busy machine before
 * it has run to read its answer. Sent at full speed, this much takes tens of milliseconds even
 * over loopback.
 */
export const LINGER_BYTES = 64 * 1024 * 1024;

/** How long and how much of what the client still sends is read off, at most. */
export interface LingerBounds {
  ms: number;
  bytes: number;
}

const BOUNDS: LingerBounds = { ms: LINGER_MS, bytes: LINGER_BYTES };

/** Connections being closed, with the count of bytes read past which they are cut. */
const lingering = new WeakMap<Duplex, number>();

/** Bytes received on the connection so far (0 for a stream that does not count them). */
const bytesRead = (socket: Duplex): number => (socket as Partial<Socket>).bytesRead ?? 0;

/**
 * Whether `socket` is being closed lingering, in which case more bytes arrived and are counted
 * against the bound (the connection is cut once past it).
 */
export function isLingering(socket: Duplex): boolean {
  const cutAt = lingering.get(socket);
  if (cutAt === undefined) return false;
  if (bytesRead(socket) > cutAt) socket.destroy();
  return true;
}

/**
 * Closes `socket` lingering. `arriving` is what the client's further bytes come out of: the
 * request, while Node's HTTP parser reads the connection (its body's end is the client's end);
 * the socket itself otherwise.
 */
export function closeLingering(
  socket: Duplex,
  arriving: Readable = socket,
  bounds: LingerBounds = BOUNDS,
): void {
  if (socket.destroyed || lingering.has(socket)) return;
  lingering.set(socket, bytesRead(socket) + bounds.bytes);
  const cut = setTimeout(() => socket.destroy(), bounds.ms);
  cut.unref();
  socket.once('close', () => clearTimeout(cut));

  let clientDone = false;
  // Destroyed only once the answer has been handed to the kernel, which then still sends it.
  const closeWhenDone = () => {
    if (clientDone && socket.writableFinished) socket.destroy();
  };
  const clientEnded = () => {
    clientDone = true;
    closeWhenDone();
  };
  socket.once('finish', closeWhenDone);
  socket.once('end', clientEnded);
  if (arriving !== socket) {
    if (arriving.readableEnded) clientDone = true;
    else arriving.once('end', clientEnded);
  }
  arriving.on('data', () => isLingering(socket));
  arriving.resume();
  if (!socket.writableEnded) socket.end();
  closeWhenDone();
}

/**
 * Makes `res` the last answer on its connection (`Connection: close`), which is then closed
 * lingering. The body is drained from now on, so that what is refused never waits in the kernel.
 */
export function lingerAfterAnswer(req: IncomingMessage, res: ServerResponse): void {
  res.setHeader('Connection', 'close');
  // Node ends a connection after its last answer with `destroySoon`, which destroys the socket
  // as soon as the answer is written, whatever it still has to read.
  const socket = req.socket;
  socket.destroySoon = () => closeLingering(socket, req);
  // Flowing with no reader drops the body; Node's own dropping of it (once the answer is written)
  // would hide the bytes from the count against LINGER_BYTES.
  req.unpipe();
  req.resume();
}
