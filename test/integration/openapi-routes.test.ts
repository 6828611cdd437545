import { publicOpenApi } from '../../services/gateway/openapi.js';
import { managementOpenApi } from '../../services/management/openapi.js';
import { operations, type Doc } from '../support/openapi-documents.js';
import {
  AUTH,
  system,
  runningApp,
  registeredRoutes,
  documentedRoutes,
  concrete,
  send,
} from '../support/openapi-system.js';

/**
 * Keeps both OpenAPI documents true: they are valid, they list exactly the routes the apps
 * register, and real responses match the schema documented for their path, method and status.
 */

describe('(b) each document lists exactly the routes its app registers', () => {
  const apps = [
    {
      name: 'public',
      doc: publicOpenApi as unknown as Doc,
      url: () => system.running.gatewayUrl,
    },
    {
      name: 'management',
      doc: managementOpenApi as unknown as Doc,
      url: () => system.running.managementUrl,
    },
  ];

  describe.each(apps)('$name API', ({ doc, url }) => {
    test('every registered route is documented, and every documented route is registered', () => {
      const registered = registeredRoutes(runningApp(url()));
      expect(registered.length).toBeGreaterThan(0);
      expect(registered).toEqual(documentedRoutes(doc));
    });

    test('every documented path and method is answered by a route, not the unknown-route 404', async () => {
      for (const { path, method, op } of operations(doc)) {
        const concretePath = concrete(path);
        let req = send(url(), method, concretePath).set('Authorization', AUTH);
        if (method === 'post' || method === 'patch' || method === 'put') req = req.send({});
        const res = await req;
        const unknown = `There is no ${method.toUpperCase()} ${concretePath}.`;
        expect([`${method} ${path}`, res.body?.error?.message]).not.toEqual([
          `${method} ${path}`,
          unknown,
        ]);
        const html = op.responses['200']?.content?.['text/html'] !== undefined;
        const keySet = op.responses['200']?.content?.['application/jwk-set+json'] !== undefined;
        const csv = Object.keys(op.responses['200']?.content ?? {}).some((type) =>
          type.startsWith('text/csv'),
        );
        expect(res.headers['content-type']).toMatch(
          html
            ? /^text\/html/
            : keySet
              ? /^application\/jwk-set\+json/
              : csv
                ? /^text\/csv/
                : /^application\/json/,
        );
      }
    });

    test('a path that is not documented gets the unknown-route 404', async () => {
      const res = await send(url(), 'get', '/not-documented').set('Authorization', AUTH);
      expect(res.status).toBe(404);
      expect(res.body.error.message).toBe('There is no GET /not-documented.');
    });
  });
});
