import { once } from 'node:events';
import { createServer, Socket, type AddressInfo, type Server } from 'node:net';
import { sendWritesPerTick, socketOf } from '../../libs/transport/tick-writes.js';

/** A connected client socket, everything its peer receives, and when the peer has read it all. */
async function connectedSocket(): Promise<{
  socket: Socket;
  received: () => Buffer;
  peerEnded: Promise<unknown>;
  server: Server;
}> {
  const chunks: Buffer[] = [];
  const server = createServer();
  const accepted = once(server, 'connection') as Promise<[Socket]>;
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const socket = new Socket();
  socket.connect((server.address() as AddressInfo).port, '127.0.0.1');
  const [[peer]] = await Promise.all([accepted, once(socket, 'connect')]);
  peer.on('data', (chunk: Buffer) => chunks.push(chunk));
  // 'end' comes after the last byte the client sent has been read: no time is guessed.
  const peerEnded = once(peer, 'end');
  return { socket, server, peerEnded, received: () => Buffer.concat(chunks) };
}

/** The socket's hand-overs to the operating system: one per `_write` or `_writev`. */
function handOvers(socket: Socket): Array<number> {
  const counts: number[] = [];
  const target = socket as unknown as {
    _write: (...args: unknown[]) => unknown;
    _writev: (chunks: unknown[], ...rest: unknown[]) => unknown;
  };
  const write = target._write.bind(socket);
  const writev = target._writev.bind(socket);
  target._write = (...args) => {
    counts.push(1);
    return write(...args);
  };
  target._writev = (chunks, ...rest) => {
    counts.push(chunks.length);
    return writev(chunks, ...rest);
  };
  return counts;
}

const nextTick = () => new Promise<void>((resolve) => process.nextTick(resolve));

/** What the peer received once the client has ended; both ends are then closed. */
async function receivedThenClosed(connection: Awaited<ReturnType<typeof connectedSocket>>) {
  connection.socket.end();
  await connection.peerEnded;
  connection.socket.destroy();
  connection.server.close();
  return connection.received().toString();
}

/** A connected socket whose writes of one tick leave together, and its hand-overs so far. */
async function tickWritingSocket() {
  const connection = await connectedSocket();
  const counts = handOvers(connection.socket);
  sendWritesPerTick(connection.socket);
  return { connection, socket: connection.socket, counts };
}

describe('RPC messages: the writes of one tick leave together', () => {
  test('three writes in one tick are handed over once, in order', async () => {
    const { connection, socket, counts } = await tickWritingSocket();
    socket.write('reply;');
    socket.write('ack;');
    socket.write('reply;');
    expect(counts).toEqual([]);
    await nextTick();
    expect(counts).toEqual([3]);
    expect(await receivedThenClosed(connection)).toBe('reply;ack;reply;');
  });

  test('writes in different ticks are not held back for each other', async () => {
    const { connection, socket, counts } = await tickWritingSocket();
    socket.write('a;');
    await nextTick();
    socket.write('b;');
    await nextTick();
    expect(counts).toEqual([1, 1]);
    expect(await receivedThenClosed(connection)).toBe('a;b;');
  });

  test('a socket set up twice still uncorks after each tick', async () => {
    const { connection, socket } = await tickWritingSocket();
    sendWritesPerTick(socket);
    socket.write('x;');
    await nextTick();
    expect(socket.writableCorked).toBe(0);
    expect(await receivedThenClosed(connection)).toBe('x;');
  });

  test('the socket under a connection is found, and nothing else is taken for one', () => {
    const socket = new Socket();
    expect(socketOf({ stream: socket })).toBe(socket);
    expect(socketOf({ stream: {} })).toBeUndefined();
    expect(socketOf({})).toBeUndefined();
    expect(socketOf(null)).toBeUndefined();
    socket.destroy();
  });
});
