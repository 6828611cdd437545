import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import express, { type ErrorRequestHandler } from 'express';
import request from 'supertest';
import { checkedContentDigest, readBody } from '../../libs/http/index.js';

/**
 * The request's `Content-Digest` (docs/api-decisions.md, "Signed answers"): RFC 9530's digest of
 * the content as it is sent, so with a content coding it is the coded bytes' digest, checked
 * before the coding is undone; the route still reads the decoded body.
 */

const app = express();
app.post('/', readBody({ maxBytes: 10_000, timeoutMs: 5_000 }), (req, res) => {
  res.json({ body: (req.body as Buffer).toString('utf8'), checked: checkedContentDigest(res) });
});
const refusal: ErrorRequestHandler = (error: Error, _req, res, _next) => {
  res.status(400).json({ error: error.message });
};
app.use(refusal);

const digestOf = (bytes: Buffer) =>
  `sha-256=:${createHash('sha256').update(bytes).digest('base64')}:`;

describe('a request body with a sha-256 Content-Digest', () => {
  const text = 'license_key=K-123&identifier=example.com';
  const send = (body: Buffer, digest: string, coding?: string) => {
    const call = request(app)
      .post('/')
      // Sent as bytes: superagent would encode a form's Buffer again.
      .set('Content-Type', 'application/octet-stream')
      .set('Content-Digest', digest);
    return (coding ? call.set('Content-Encoding', coding) : call).send(body);
  };

  test('is checked against the bytes as received', async () => {
    const plain = Buffer.from(text);
    const res = await send(plain, digestOf(plain));
    expect(res.body).toEqual({ body: text, checked: digestOf(plain) });
  });

  test('sent content-coded, its digest is of the coded bytes, and the route reads them decoded', async () => {
    const coded = gzipSync(Buffer.from(text));
    const res = await send(coded, digestOf(coded), 'gzip');
    expect(res.body).toEqual({ body: text, checked: digestOf(coded) });
  });

  test('sent content-coded, a digest of the body before the coding is refused', async () => {
    const coded = gzipSync(Buffer.from(text));
    const res = await send(coded, digestOf(Buffer.from(text)), 'gzip');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/does not match its Content-Digest/);
  });
});
