/**
 * The electron-updater harness against a small HTTP server of hand-written channel files: what
 * electron-updater's generic provider asks for, and how it takes each answer.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpError } from 'builder-util-runtime';
import { checkAndDownload, type ElectronUpdateCheck } from '../support/electron-updater.js';

const INSTALLER = Buffer.from('the 1.2.3 installer');
const MAC_ZIP = Buffer.from('the 1.2.3 mac zip');
const APP_IMAGE = Buffer.from('the 1.2.3 AppImage');
const sha512 = (bytes: Buffer) => createHash('sha512').update(bytes).digest('base64');

const latestYml = (sha512OfInstaller: string) =>
  [
    'version: 1.2.3',
    'files:',
    '  - url: App-Setup-1.2.3.exe',
    `    sha512: ${sha512OfInstaller}`,
    `    size: ${INSTALLER.length}`,
    'path: App-Setup-1.2.3.exe',
    `sha512: ${sha512OfInstaller}`,
    "releaseDate: '2026-03-01T09:00:00.000Z'",
  ].join('\n');

const latestMacYml = [
  'version: 1.2.3',
  'files:',
  '  - url: App-1.2.3-arm64-mac.zip',
  `    sha512: ${sha512(Buffer.from('arm64'))}`,
  '  - url: App-1.2.3.dmg',
  `    sha512: ${sha512(Buffer.from('dmg'))}`,
  '  - url: App-1.2.3-mac.zip',
  `    sha512: ${sha512(MAC_ZIP)}`,
  `    size: ${MAC_ZIP.length}`,
  "releaseDate: '2026-03-01T09:00:00.000Z'",
].join('\n');

const latestLinuxYml = [
  'version: 1.2.3',
  'files:',
  '  - url: App-1.2.3.deb',
  `    sha512: ${sha512(Buffer.from('deb'))}`,
  '  - url: App-1.2.3.AppImage?ignored=1',
  `    sha512: ${sha512(APP_IMAGE)}`,
  "releaseDate: '2026-03-01T09:00:00.000Z'",
].join('\n');

/** What the server answers, by path; anything else is a 404. */
const answers: Record<string, { status: number; body: string | Buffer; type?: string }> = {
  '/feed/latest.yml': { status: 200, body: latestYml(sha512(INSTALLER)) },
  '/feed/latest-mac.yml': { status: 200, body: latestMacYml },
  '/feed/latest-linux.yml': { status: 200, body: latestLinuxYml },
  '/feed/App-Setup-1.2.3.exe': { status: 200, body: INSTALLER },
  '/feed/App-1.2.3-mac.zip': { status: 200, body: MAC_ZIP },
  '/feed/App-1.2.3.AppImage': { status: 200, body: APP_IMAGE },
  '/refused/latest.yml': {
    status: 403,
    type: 'application/json',
    body: JSON.stringify({ error: { code: 'license_refused', message: 'Refused' } }),
  },
  '/unauthorized/latest.yml': { status: 401, body: 'no key' },
  '/corrupt/latest.yml': { status: 200, body: latestYml(sha512(Buffer.from('other bytes'))) },
  '/corrupt/App-Setup-1.2.3.exe': { status: 200, body: INSTALLER },
  '/file-refused/latest.yml': { status: 200, body: latestYml(sha512(INSTALLER)) },
  '/file-refused/App-Setup-1.2.3.exe': { status: 403, body: 'refused' },
};

let server: Server;
let origin: string;
let requests: { url: string; headers: IncomingHttpHeaders }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    requests.push({ url: request.url ?? '', headers: request.headers });
    const path = new URL(request.url ?? '/', 'http://local').pathname;
    const answer = answers[path] ?? { status: 404, body: 'not found' };
    response.writeHead(answer.status, { 'content-type': answer.type ?? 'text/plain' });
    response.end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  requests = [];
});

const check = (feed: string, more: Partial<ElectronUpdateCheck> = {}): ElectronUpdateCheck => ({
  feedUrl: `${origin}${feed}`,
  channel: 'latest',
  platform: 'win32',
  ...more,
});

test("the feed's query is repeated on the channel file and on the downloaded file", async () => {
  const update = await checkAndDownload(check('/feed?license_key=KEY-1'));

  expect(update).toMatchObject({ version: '1.2.3', sha512Ok: true, sha512Error: null });
  expect(update.bytes).toEqual(INSTALLER);
  expect(update.url.href).toBe(`${origin}/feed/App-Setup-1.2.3.exe?license_key=KEY-1`);
  expect(requests.map((each) => each.url)).toEqual([
    '/feed/latest.yml?license_key=KEY-1',
    '/feed/App-Setup-1.2.3.exe?license_key=KEY-1',
  ]);
});

test("a file's own query gives way to the feed's", async () => {
  const update = await checkAndDownload(
    check('/feed?license_key=KEY-1', { platform: 'linux', arch: 'x64' }),
  );

  expect(update.bytes).toEqual(APP_IMAGE);
  expect(requests.map((each) => each.url)).toEqual([
    '/feed/latest-linux.yml?license_key=KEY-1',
    '/feed/App-1.2.3.AppImage?license_key=KEY-1',
  ]);
});

test('a Mac asks for the -mac channel file and downloads the Intel zip, not the dmg', async () => {
  const update = await checkAndDownload(check('/feed?license_key=KEY-1', { platform: 'darwin' }));

  expect(update.bytes).toEqual(MAC_ZIP);
  expect(update.files.map((url) => url.pathname)).toEqual([
    '/feed/App-1.2.3-arm64-mac.zip',
    '/feed/App-1.2.3.dmg',
    '/feed/App-1.2.3-mac.zip',
  ]);
  expect(requests.map((each) => each.url)).toEqual([
    '/feed/latest-mac.yml?license_key=KEY-1',
    '/feed/App-1.2.3-mac.zip?license_key=KEY-1',
  ]);
});

test('the Authorization header goes with both requests, and then no noCache query is added', async () => {
  await checkAndDownload(check('/feed', { requestHeaders: { Authorization: 'License KEY-2' } }));

  expect(requests.map((each) => each.url)).toEqual([
    '/feed/latest.yml',
    '/feed/App-Setup-1.2.3.exe',
  ]);
  for (const each of requests) expect(each.headers.authorization).toBe('License KEY-2');
  expect(requests[0]?.headers['x-user-staging-id']).toEqual(expect.any(String));
});

test('without a query or an Authorization header the channel file gets a noCache query', async () => {
  await checkAndDownload(check('/feed'));

  expect(requests[0]?.url).toMatch(/^\/feed\/latest\.yml\?noCache=\w+$/);
  expect(requests[1]?.url).toBe('/feed/App-Setup-1.2.3.exe');
});

test("a 404 is electron-updater's missing channel, never a refusal", async () => {
  const missing = checkAndDownload(check('/nowhere?license_key=KEY-1', { channel: 'beta' }));

  await expect(missing).rejects.toMatchObject({
    code: 'ERR_UPDATER_CHANNEL_FILE_NOT_FOUND',
    message: expect.stringMatching(/^Cannot find channel "beta\.yml" update info: HttpError: 404/),
  });
});

test.each([
  ['/refused', 403, /license_refused/],
  ['/unauthorized', 401, /no key/],
])('a refused key (%s) is an HttpError with its status and body', async (feed, status, body) => {
  const refused = checkAndDownload(check(`${feed}?license_key=BAD`));

  await expect(refused).rejects.toBeInstanceOf(HttpError);
  await expect(refused).rejects.toMatchObject({ statusCode: status, code: `HTTP_ERROR_${status}` });
  await expect(refused).rejects.toThrow(body);
});

test('a file refused at download is a plain error naming its status, not an HttpError', async () => {
  const refused = checkAndDownload(check('/file-refused?license_key=BAD'));

  await expect(refused).rejects.not.toBeInstanceOf(HttpError);
  await expect(refused).rejects.toThrow(/^Cannot download ".+", status 403: Forbidden$/);
});

test("a sha512 that does not match the file is electron-updater's checksum mismatch", async () => {
  const update = await checkAndDownload(check('/corrupt?license_key=KEY-1'));

  expect(update).toMatchObject({ sha512Ok: false, bytes: null });
  expect(update.sha512Error).toBe(
    `sha512 checksum mismatch, expected ${sha512(Buffer.from('other bytes'))}, got ${sha512(INSTALLER)}`,
  );
});
