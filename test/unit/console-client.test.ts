import request from 'supertest';
import { managementApp } from '../support/management-app.js';
import { LicenseRef, LicensingError } from '../../libs/contracts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { InProcessBus, InProcessTransport } from '../../libs/transport/index.js';
import type { Endpoint } from '../../services/management/console-config.js';
import { endpointsOf, pathOf } from '../../services/management/console/shared/api/endpoints.js';
import { adminEndpoints, managementRoutes } from '../../services/management/routes.js';

/**
 * The admin console's client (services/management/console/shared/api/admin-api.ts) names
 * operations, never paths: the console page says where each operation is, from the route table,
 * and a call's path is its route's with each path parameter filled in as one segment. What a call
 * may send and is answered is typed from the same routes (api-contract.ts), which the typecheck
 * holds the console's calls to (console/shared/api/admin-api.type-test.ts).
 */

const logger = createLogger('test', 'silent');
/** Keys the license service was asked for. */
const asked: string[] = [];
const bus = new InProcessBus();
bus.register('license', {
  'license.getLicense': async (request) => {
    asked.push(LicenseRef.parse(request).license_key);
    throw new LicensingError('NOT_FOUND', 'No such license.');
  },
});
const transport = new InProcessTransport(bus, { timeoutMs: 2000, logger });
afterAll(() => transport.close());

const app = managementApp(transport);

const endpoints = adminEndpoints(managementRoutes);
function endpoint(operationId: string): Endpoint {
  const found = endpoints[operationId];
  if (found === undefined) throw new Error(`No endpoint ${operationId}.`);
  return found;
}

describe('where the console sends its calls', () => {
  test('the console page says where every admin route is, by operation id, and names nothing else', async () => {
    const page = await request(app).get('/');
    expect(page.status).toBe(200);
    const block = /<script type="application\/json" id="page-config">(.*?)<\/script>/.exec(
      page.text,
    );
    const served: Record<string, unknown> = JSON.parse(block![1]!).endpoints;
    const admin = managementRoutes.filter((route) => route.access === 'admin');
    for (const route of managementRoutes) {
      expect([route.operationId, served[route.operationId]]).toEqual([
        route.operationId,
        route.access === 'admin' ? { method: route.method, path: route.path } : undefined,
      ]);
    }
    expect(Object.keys(served)).toHaveLength(admin.length);
    expect(served.removeActivation).toEqual({
      method: 'delete',
      path: '/admin/v1/licenses/:key/activations/:identifier',
    });
    expect(served.uploadFile).toEqual({ method: 'post', path: '/admin/v1/versions/:id/files' });
    expect(served.exportLicenses).toEqual({ method: 'get', path: '/admin/v1/exports/licenses' });
  });

  test('the console reads the endpoints of its page, leaving out an entry not of their form', () => {
    expect(
      endpointsOf({
        endpoints: {
          getLicense: { method: 'get', path: '/admin/v1/licenses/:key' },
          noMethod: { path: '/admin/v1/x' },
          strangeMethod: { method: 'trace', path: '/admin/v1/x' },
          noPath: { method: 'get' },
          notAnObject: 'get /admin/v1/x',
        },
      }),
    ).toEqual({ getLicense: { method: 'get', path: '/admin/v1/licenses/:key' } });
    expect(endpointsOf({})).toEqual({});
  });

  test('a license key or identifier is one path segment, whatever it holds', () => {
    expect(
      pathOf(endpoint('removeActivation'), { key: 'AB/C?D#E F', identifier: 'x y/../%z' }, {}),
    ).toBe('/admin/v1/licenses/AB%2FC%3FD%23E%20F/activations/x%20y%2F..%2F%25z');
    expect(pathOf(endpoint('getProduct'), { id: 12 }, {})).toBe('/admin/v1/products/12');
  });

  test('the route receives the key exactly as the console had it', async () => {
    const key = 'AB/C?D#E F%20';
    const res = await request(app)
      .get(pathOf(endpoint('getLicense'), { key }, {}))
      .set('Authorization', 'Bearer t');
    expect(res.status).toBe(404);
    expect(asked).toEqual([key]);
  });

  test('a missing or empty path parameter is refused, not sent to another path', () => {
    expect(() => pathOf(endpoint('getLicense'), {}, {})).toThrow(/needs key/);
    expect(() => pathOf(endpoint('getLicense'), { key: '' }, {})).toThrow(/needs key/);
    expect(() => pathOf(endpoint('removeActivation'), { key: 'K' }, {})).toThrow(
      /needs identifier/,
    );
  });

  test('absent query values are left out; numbers and booleans go as their text, encoded', () => {
    const path = pathOf(
      endpoint('listDownloadLog'),
      {},
      { refused: true, product_id: null, from: '', to: undefined, page: 2 },
    );
    expect(path).toBe('/admin/v1/download-log?refused=true&page=2');
    expect(pathOf(endpoint('searchLicenses'), {}, { q: 'a&b=c #d' })).toBe(
      '/admin/v1/licenses?q=a%26b%3Dc+%23d',
    );
    expect(pathOf(endpoint('listAdmins'), {}, { q: null })).toBe('/admin/v1/admins');
  });
});
