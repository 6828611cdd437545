import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { text } from 'node:stream/consumers';
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

describe('readObject', () => {
  let server: Server;
  let base: string;
  const seen: Array<Record<string, string | string[] | undefined>> = [];
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.headers);
      if (req.url?.startsWith('/missing')) {
        res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error/>');
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
    expect(await text(got.body)).toBe('hello world');
    expect(seen.at(-1)).toMatchObject({ range: 'bytes=0-', connection: 'close' });
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
