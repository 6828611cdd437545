import { request } from 'node:http';

/** An HTTP answer, its JSON body parsed when it has one. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  /** From the request's start to the last byte of its answer. */
  ms: number;
}

/** No answer within the client's own time limit. */
export class ClientTimeout extends Error {
  override name = 'ClientTimeout';
}

/**
 * One HTTP request on a connection of its own (`Connection: close`), so no answer depends on a
 * kept-alive socket the server may be closing, with a client-side time limit: a request that
 * gets no answer within `timeoutMs` is abandoned and rejected with `ClientTimeout`.
 */
export function http(
  url: string,
  options: {
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    timeoutMs: number;
  },
): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body, 'utf8');
    const req = request(url, {
      method: options.method ?? 'GET',
      agent: false,
      headers: {
        Connection: 'close',
        ...(body === undefined ? {} : { 'Content-Length': String(body.length) }),
        ...options.headers,
      },
    });
    const timer = setTimeout(() => {
      req.destroy(new ClientTimeout(`no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs);
    req.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.once('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.once('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      res.once('end', () => {
        clearTimeout(timer);
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        if (/json/.test(String(res.headers['content-type']))) {
          try {
            parsed = JSON.parse(text) as unknown;
          } catch {
            parsed = text;
          }
        }
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: parsed,
          ms: performance.now() - started,
        });
      });
    });
    req.end(body);
  });
}

/** `{data: {...}}` of an answer, or undefined. */
export function dataOf(answer: Answer): Record<string, unknown> | undefined {
  const body = answer.body as { data?: unknown } | null;
  const data = typeof body === 'object' && body !== null ? body.data : undefined;
  return typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : undefined;
}

/** `{error: {...}}` of an answer, or undefined. */
export function errorOf(answer: Answer): Record<string, unknown> | undefined {
  const body = answer.body as { error?: unknown } | null;
  const error = typeof body === 'object' && body !== null ? body.error : undefined;
  return typeof error === 'object' && error !== null
    ? (error as Record<string, unknown>)
    : undefined;
}
