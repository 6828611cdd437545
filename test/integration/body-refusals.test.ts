import {
  answersNotTooLarge,
  LIMITED_ROUTES,
  UPLOAD_LIMIT_SETTING,
} from '../support/refused-bodies.js';
import { ADMIN_TOKEN, bootSystem, type TestSystem } from '../support/system.js';

/**
 * A body refused before it has all arrived (too large by its declared length, or while it is
 * read) is answered, and its connection closed lingering, so that every kind of client reads
 * the answer, also one still sending. The system keeps the default request timeout: a short one
 * would answer a request the loaded machine was slow to read with 408 instead.
 */

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem({ ...UPLOAD_LIMIT_SETTING });
});
afterAll(() => system?.stop());

describe('every client reads its 413, also one still sending the body', () => {
  const addresses = () => ({
    gatewayUrl: system.running.gatewayUrl,
    managementUrl: system.running.managementUrl,
    adminToken: ADMIN_TOKEN,
  });
  test.each(Object.entries(LIMITED_ROUTES))(
    '%s: fetch, http.request writing in chunks and curl, each time',
    async (_route, target) => {
      expect(await answersNotTooLarge(target(addresses()))).toEqual([]);
    },
  );

  test("the download service's upload port: fetch, http.request writing in chunks and curl, each time", async () => {
    const { upload_url } = await system.transport.call('download.prepareUpload', {
      filename: 'big.zip',
    });
    const target = {
      url: upload_url,
      method: 'PUT' as const,
      headers: { 'Content-Type': 'application/zip' },
      opening: '',
    };
    expect(await answersNotTooLarge(target)).toEqual([]);
  });
});
