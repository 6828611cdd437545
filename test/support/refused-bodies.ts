import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { API_BASE } from '../../libs/contracts/index.js';

/**
 * Oversized bodies sent as three kinds of client send them, for the tests of the rule that every
 * client reads its 413: the server answers before it has read the body, and must close the
 * connection so that a client still sending is not reset before it has read that answer.
 */

/** The size of the bodies sent: far over every limit they are refused by. */
export const OVERSIZED_BYTES = 2 * 1024 * 1024;

/** Times each client sends its body in a row: losing an answer now and then is what is tested. */
export const RUNS = 20;

export interface OversizedRequest {
  /** Where the body is sent, with `method` (POST unless said). */
  url: string;
  method?: 'PUT';
  headers: Record<string, string>;
  /** The body's opening; `a` follows up to OVERSIZED_BYTES. */
  opening: string;
  /**
   * The route refuses a body by its declared length only (package uploads, which stream what
   * they read): the slow client declares it too, rather than sending it chunked.
   */
  declaredOnly?: true;
}

/** The addresses of a running system, and its admin token. */
export interface SystemAddresses {
  gatewayUrl: string;
  managementUrl: string;
  adminToken: string;
}

type LimitedRoute = (system: SystemAddresses) => OversizedRequest;

const json = { 'Content-Type': 'application/json' };
const asAdmin = (system: SystemAddresses) => ({ Authorization: `Bearer ${system.adminToken}` });

/**
 * The setting the system under test needs for its package uploads to refuse these bodies: a
 * MAX_UPLOAD_BYTES under OVERSIZED_BYTES.
 */
export const UPLOAD_LIMIT_SETTING = { MAX_UPLOAD_BYTES: String(OVERSIZED_BYTES / 2) };

/**
 * The routes with a body limit, on the public port and the admin port: a form operation
 * (16 KiB), a store's event (512 KiB), an admin JSON body (64 KiB), a package upload (declared
 * over MAX_UPLOAD_BYTES: UPLOAD_LIMIT_SETTING).
 */
export const LIMITED_ROUTES: Record<string, LimitedRoute> = {
  'a license operation (form)': (system) => ({
    url: `${system.gatewayUrl}${API_BASE}/licenses/validate`,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    opening: 'license_key=k&identifier=',
  }),
  "a store's event": (system) => ({
    url: `${system.gatewayUrl}${API_BASE}/stores/1/events`,
    headers: json,
    opening: '{"event":"',
  }),
  'an admin JSON body': (system) => ({
    url: `${system.managementUrl}/admin/v1/products`,
    headers: { ...asAdmin(system), ...json },
    opening: '{"title":"',
  }),
  'a package upload': (system) => ({
    url: `${system.managementUrl}/admin/v1/versions/1/files`,
    headers: { ...asAdmin(system), 'Content-Type': 'multipart/form-data; boundary=b' },
    opening: '--b\r\nContent-Disposition: form-data; name="file"; filename="a.zip"\r\n\r\n',
    declaredOnly: true,
  }),
};

interface Answer {
  status: number;
  /** The answer's Connection field. */
  connection: string | null;
  body: string;
}

type Client = (target: OversizedRequest, body: Buffer) => Promise<Answer>;

/** Node's `fetch`, the whole body in one go with its Content-Length. */
const nodeFetch: Client = async ({ url, method = 'POST', headers }, body) => {
  const response = await fetch(url, { method, headers, body });
  return {
    status: response.status,
    connection: response.headers.get('connection'),
    body: await response.text(),
  };
};

/** What `http.request` writes at a time, one write a turn of the event loop. */
const CHUNK_BYTES = 16 * 1024;

/**
 * `http.request` writing the body bit by bit, a chunk a turn of its event loop, as a stream piped
 * into it does (chunked transfer unless `declaredOnly`, so the server finds the body too large
 * only while reading it). It is still writing when the answer comes, and stops once it has come,
 * as a client that reads its answer does.
 */
const chunkWriter: Client = ({ url, method = 'POST', headers, declaredOnly }, body) =>
  new Promise((resolve, reject) => {
    let answered = false;
    const length = declaredOnly ? { 'Content-Length': String(body.length) } : {};
    const req = httpRequest(url, { method, headers: { ...headers, ...length } }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        resolve({
          status: res.statusCode ?? 0,
          connection: res.headers.connection ?? null,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        req.destroy();
      });
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const writeFrom = (at: number) => {
      if (answered || req.destroyed) return;
      if (at >= body.length) return void req.end();
      req.write(body.subarray(at, at + CHUNK_BYTES));
      setImmediate(() => writeFrom(at + CHUNK_BYTES));
    };
    writeFrom(0);
  });

const run = promisify(execFile);

/**
 * curl, the body read from a file (`--data-binary @file`); after the body it writes the answer's
 * Connection field and status, a line each.
 */
function curl(file: string): Client {
  return async ({ url, method = 'POST', headers }) => {
    const { stdout } = await run('curl', [
      '--silent',
      '--show-error',
      '--max-time',
      '30',
      '--request',
      method,
      '--write-out',
      '\n%header{connection}\n%{http_code}',
      ...Object.entries(headers).flatMap(([name, value]) => ['-H', `${name}: ${value}`]),
      '--data-binary',
      `@${file}`,
      url,
    ]);
    const lines = stdout.split('\n');
    const status = Number(lines.pop());
    const connection = lines.pop() || null;
    return { status, connection, body: lines.join('\n') };
  };
}

/**
 * Whether an answer is the 413 in the error envelope that closes the connection; what it was
 * instead, if not.
 */
function problemWith(answer: Answer): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    parsed = undefined;
  }
  const error = (parsed as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
  const envelope =
    error?.code === 'PAYLOAD_TOO_LARGE' && typeof error.message === 'string' && error.message;
  if (answer.status === 413 && envelope && answer.connection === 'close') return null;
  return `${answer.status} (Connection: ${answer.connection}) ${answer.body.slice(0, 200)}`;
}

/** A client's failure: fetch's message and its cause's code, or what curl wrote to stderr. */
function describeFailure(error: unknown): string {
  const { message, cause, stderr } = error as {
    message?: string;
    cause?: { code?: unknown };
    stderr?: unknown;
  };
  if (typeof stderr === 'string' && stderr.trim() !== '') return stderr.trim();
  const code = (error as { code?: unknown }).code ?? cause?.code;
  return `${message ?? String(error)}${typeof code === 'string' ? ` (${code})` : ''}`;
}

/**
 * Sends a body of OVERSIZED_BYTES RUNS times in a row with each client: Node's fetch,
 * http.request writing in chunks, curl. Every answer that is not 413 PAYLOAD_TOO_LARGE in the
 * envelope is listed, with the client and the run: the list is empty when every client read its
 * answer every time.
 */
export async function answersNotTooLarge(target: OversizedRequest): Promise<string[]> {
  const body = Buffer.alloc(OVERSIZED_BYTES, 'a');
  body.write(target.opening);
  const dir = mkdtempSync(path.join(tmpdir(), 'oversized-'));
  const file = path.join(dir, 'body');
  writeFileSync(file, body);
  const clients: Record<string, Client> = {
    fetch: nodeFetch,
    'http.request writing in chunks': chunkWriter,
    curl: curl(file),
  };
  const problems: string[] = [];
  try {
    for (const [name, client] of Object.entries(clients)) {
      for (let runNumber = 1; runNumber <= RUNS; runNumber++) {
        const problem = await client(target, body).then(problemWith, describeFailure);
        if (problem !== null) problems.push(`${name}, run ${runNumber}: ${problem}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return problems;
}
