import { presignSignatureV4, signV4 } from 'minio/dist/esm/signing.mjs';
import { togetherProblems } from '../../libs/config/together.js';
import { ConfigError, loadConfig } from '../../libs/config/index.js';
import { signatureProblem } from '../../services/download/embedded-storage/embedded-signature.js';
import { downloadProcess } from '../../services/download/service.js';
import { gatewayProcess } from '../../services/gateway/service.js';

/**
 * The embedded package store (docs/operations.md): it takes a request only when its SigV4
 * signature verifies under the store's own key, in date; and redirect mode, which sends clients
 * to the store, is refused with it.
 */

const credentials = { accessKey: 'S3RVER', secretKey: 'a'.repeat(64) };
const HOST = '127.0.0.1:4568';
const SIGNED_AT = new Date('2025-03-01T12:00:00Z');
const at = (seconds: number) => new Date(SIGNED_AT.getTime() + seconds * 1000);

/** A presigned GET of `path`, as the download service makes one (60 s). */
function presigned(path: string, secretKey = credentials.secretKey, expires = 60) {
  const url = presignSignatureV4(
    { protocol: 'http:', method: 'GET', path, headers: { host: HOST } },
    credentials.accessKey,
    secretKey,
    undefined,
    'us-east-1',
    SIGNED_AT,
    expires,
  );
  return url.slice(`http://${HOST}`.length);
}

/** A header-signed request, as the minio client sends one. */
function headerSigned(method: string, url: string, secretKey = credentials.secretKey) {
  const headers = {
    host: HOST,
    'x-amz-date': '20250301T120000Z',
    'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
  };
  const authorization = signV4(
    { protocol: 'http:', method, path: url, headers },
    credentials.accessKey,
    secretKey,
    'us-east-1',
    SIGNED_AT,
    'UNSIGNED-PAYLOAD',
  );
  return { method, url, headers: { ...headers, authorization } };
}

const check = (request: Parameters<typeof signatureProblem>[0], now = at(1)) =>
  signatureProblem(request, credentials, now);

describe('the embedded package store verifies every signature', () => {
  const object = '/licensing-packages/packages/a/plugin.zip?response-content-disposition=x';

  test('a request signed with its key, in date, is taken; header-signed or presigned', () => {
    expect(check(headerSigned('PUT', '/licensing-packages/packages/a/plugin.zip'))).toBeNull();
    expect(check(headerSigned('GET', '/licensing-packages?uploads=&prefix=p'))).toBeNull();
    expect(check({ method: 'GET', url: presigned(object), headers: { host: HOST } })).toBeNull();
  });

  test('an unsigned request is refused, whatever it asks', () => {
    for (const [method, url] of [
      ['GET', '/licensing-packages'],
      ['GET', '/licensing-packages?uploads'],
      ['GET', '/licensing-packages/packages/a/plugin.zip'],
      ['PUT', '/licensing-packages/packages/a/plugin.zip'],
      ['DELETE', '/licensing-packages/packages/a/plugin.zip?uploadId=1'],
    ] as const) {
      expect([method, url, check({ method, url, headers: { host: HOST } })]).toEqual([
        method,
        url,
        'The request is not signed.',
      ]);
    }
  });

  test('a signature made with another key, or for another request, is refused', () => {
    expect(check(headerSigned('GET', '/licensing-packages', 'b'.repeat(64)))).toMatch(/match/);
    const other = headerSigned('GET', '/licensing-packages/packages/a/plugin.zip');
    expect(check({ ...other, method: 'DELETE' })).toMatch(/match/);
    expect(check({ ...other, url: '/licensing-packages/packages/b/plugin.zip' })).toMatch(/match/);
    expect(check({ ...other, url: `${other.url}?x=1?y=2` })).toMatch(/malformed/);
  });

  test('a presigned URL reads its own object only, with GET, and only what it says', () => {
    const url = presigned(object);
    const headers = { host: HOST };
    expect(check({ method: 'GET', url: url.replace('/a/', '/b/'), headers })).toMatch(/match/);
    expect(check({ method: 'PUT', url, headers })).toMatch(/only reads/);
    expect(check({ method: 'DELETE', url, headers })).toMatch(/only reads/);
    expect(check({ method: 'HEAD', url, headers })).toMatch(/match/);
    expect(check({ method: 'GET', url: url.replace('=x', '=y'), headers })).toMatch(/match/);
    expect(check({ method: 'GET', url: `${url}&list-type=2`, headers })).toMatch(/match/);
    const longer = url.replace('X-Amz-Expires=60', 'X-Amz-Expires=3600');
    expect(check({ method: 'GET', url: longer, headers }, at(120))).toMatch(/match/);
    expect(check({ method: 'GET', url: presigned(object, 'b'.repeat(64)), headers })).toMatch(
      /match/,
    );
  });

  test('a presigned URL past its expiry, or dated ahead, is refused', () => {
    const url = presigned(object);
    const headers = { host: HOST };
    expect(check({ method: 'GET', url, headers }, at(60))).toBeNull();
    expect(check({ method: 'GET', url, headers }, at(61))).toBe('The URL has expired.');
    expect(check({ method: 'GET', url, headers }, at(-16 * 60))).toBe('The URL is not valid yet.');
  });

  test('a header-signed request more than 15 minutes from the clock is refused', () => {
    const request = headerSigned('GET', '/licensing-packages');
    expect(check(request, at(15 * 60))).toBeNull();
    expect(check(request, at(15 * 60 + 1))).toMatch(/too far/);
    expect(check(request, at(-15 * 60 - 1))).toMatch(/too far/);
  });
});

describe('redirect mode needs S3_ENDPOINT (docs/settings.md: Configuration)', () => {
  test('DOWNLOAD_DELIVERY=redirect with the embedded store is refused where both are read', () => {
    let problems: readonly string[] = [];
    try {
      loadConfig({ DOWNLOAD_DELIVERY: 'redirect' });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      problems = (error as ConfigError).problems;
    }
    expect(problems).toEqual([
      expect.stringMatching(/^DOWNLOAD_DELIVERY: redirect needs S3_ENDPOINT/),
    ]);
    const store = { S3_ENDPOINT: 'http://minio:9000' };
    expect(loadConfig({ DOWNLOAD_DELIVERY: 'redirect', ...store }).DOWNLOAD_DELIVERY).toBe(
      'redirect',
    );
  });

  test('a gateway or download service of its own reads one of the two: neither refuses', () => {
    for (const { settings } of [gatewayProcess, downloadProcess]) {
      const config = loadConfig({ DOWNLOAD_DELIVERY: 'redirect' }, [], settings);
      expect(config.DOWNLOAD_DELIVERY).toBe('redirect');
    }
    expect(
      togetherProblems({ DOWNLOAD_DELIVERY: 'relay', S3_ENDPOINT: undefined }, () => true),
    ).toEqual([]);
  });
});
