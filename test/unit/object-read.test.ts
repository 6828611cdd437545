import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { parseHead, readObject } from '../../libs/transport/index.js';

/** The gateway's read of an object on its presigned URL: the answer's head, then its bytes. */

describe('parseHead', () => {
  test('the status and the headers, names in lower case', () => {
    expect(
      parseHead(
        'HTTP/1.1 206 Partial Content\r\nContent-Length: 10\r\nContent-Range: bytes 0-9/36',
      ),
    ).toEqual({
      status: 206,
      headers: { 'content-length': '10', 'content-range': 'bytes 0-9/36' },
    });
  });

  test('anything but an HTTP/1.x head is refused', () => {
    expect(parseHead('HTTP/2 200')).toBeNull();
    expect(parseHead('SSH-2.0-OpenSSH')).toBeNull();
    expect(parseHead('HTTP/1.1 200 OK\r\nno colon here')).toBeNull();
  });
});

/** Everything written to a destination, which may be made slow to show backpressure. */
function collector(options: { delayMs?: number; highWaterMark?: number } = {}) {
  const chunks: Buffer[] = [];
  const destination = new Writable({
    highWaterMark: options.highWaterMark ?? 16 * 1024,
    write(chunk: Buffer, _encoding, done) {
      chunks.push(Buffer.from(chunk));
      if (options.delayMs) setTimeout(done, options.delayMs);
      else done();
    },
  });
  return { destination, bytes: () => Buffer.concat(chunks) };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('readObject', () => {
  let server: Server;
  let base: string;
  const seen: Array<Record<string, string | string[] | undefined>> = [];
  /** 5 MB of varied bytes: a buffer reused before its write was done would change the hash. */
  const large = randomBytes(5 * 1024 * 1024);
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      if (req.url?.startsWith('/missing')) {
        res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error/>');
        return;
      }
      if (req.url?.startsWith('/large')) {
        res.writeHead(200, { 'content-length': String(large.length) });
        // Written in uneven pieces, so that reads find varied amounts waiting.
        let offset = 0;
        const next = () => {
          while (offset < large.length) {
            const piece = large.subarray(offset, offset + 1000 + (offset % 70_000));
            offset += piece.length;
            if (!res.write(piece)) return void res.once('drain', next);
          }
          res.end();
        };
        return next();
      }
      if (req.url?.startsWith('/short')) {
        // Promises 100 bytes, sends 11 and closes.
        res.writeHead(200, { 'content-length': '100' });
        res.write('hello world');
        setTimeout(() => res.destroy(), 50);
        return;
      }
      res.writeHead(200, { 'content-length': '11' }).end('hello world');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  test('sends the path, query and headers; the body is the bytes after the head', async () => {
    const { answer } = readObject({
      url: `${base}/bucket/key?X-Amz-Signature=abc`,
      headers: { Range: 'bytes=0-' },
      idleTimeoutMs: 5000,
    });
    const got = await answer;
    expect([got.status, got.headers['content-length']]).toEqual([200, '11']);
    const sink = collector();
    const parts: number[] = [];
    await got.body.relayTo(sink.destination, 11, (bytes) => parts.push(bytes));
    expect(sink.bytes().toString()).toBe('hello world');
    expect(parts.reduce((sum, bytes) => sum + bytes, 0)).toBe(11);
    expect(seen.at(-1)).toMatchObject({ range: 'bytes=0-', connection: 'close' });
  });

  test('only the length asked is written, when the store sends more', async () => {
    const got = await readObject({ url: `${base}/key`, idleTimeoutMs: 5000 }).answer;
    const sink = collector();
    await got.body.relayTo(sink.destination, 5);
    expect(sink.bytes().toString()).toBe('hello');
  });

  test('a large body arrives whole through a slow destination, relays after relays', async () => {
    // The last destination takes chunks faster than it writes them, holding them meanwhile: a
    // read buffer reused before its write is done would change what it writes.
    for (const options of [{}, { delayMs: 1 }, { delayMs: 2, highWaterMark: 64 * 1024 * 1024 }]) {
      const got = await readObject({ url: `${base}/large`, idleTimeoutMs: 5000 }).answer;
      const sink = collector(options);
      await got.body.relayTo(sink.destination, large.length);
      expect(sha256(sink.bytes())).toBe(sha256(large));
    }
  });

  test('two relays at once keep their bytes apart', async () => {
    const sinks = [collector(), collector({ delayMs: 1 })];
    await Promise.all(
      sinks.map(async (sink) => {
        const got = await readObject({ url: `${base}/large`, idleTimeoutMs: 5000 }).answer;
        await got.body.relayTo(sink.destination, large.length);
      }),
    );
    for (const sink of sinks) expect(sha256(sink.bytes())).toBe(sha256(large));
  });

  test('a store that stops before the length rejects the relay', async () => {
    const got = await readObject({ url: `${base}/short`, idleTimeoutMs: 5000 }).answer;
    const sink = collector();
    await expect(got.body.relayTo(sink.destination, 100)).rejects.toThrow(/closed the connection/);
  });

  test('a destination that closes mid-body rejects the relay and closes the store connection', async () => {
    const got = await readObject({ url: `${base}/large`, idleTimeoutMs: 5000 }).answer;
    const destination = new Writable({
      highWaterMark: 1024,
      write(_chunk, _encoding, done) {
        setTimeout(done, 5);
      },
    });
    setTimeout(() => destination.destroy(), 30);
    await expect(got.body.relayTo(destination, large.length)).rejects.toThrow(/client closed/);
  });

  test('an error answer keeps its status', async () => {
    const got = await readObject({ url: `${base}/missing`, idleTimeoutMs: 5000 }).answer;
    expect(got.status).toBe(404);
    got.body.destroy();
  });

  test('a store that cannot be reached rejects', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    await expect(
      readObject({ url: `http://127.0.0.1:${port}/x`, idleTimeoutMs: 5000 }).answer,
    ).rejects.toThrow();
  });
});
