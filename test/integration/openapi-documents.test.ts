import { managementOpenApi } from '../../services/management/openapi.js';
import { compile, documents, operations, type Doc } from '../support/openapi-documents.js';

/**
 * Keeps both OpenAPI documents true: they are valid, they list exactly the routes the apps
 * register, and real responses match the schema documented for their path, method and status.
 */

describe('(a) both documents are valid OpenAPI 3.1', () => {
  describe.each(documents)('$name document', ({ doc }) => {
    test('has the OpenAPI 3.1 header and at least one path', () => {
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.info.title).toEqual(expect.any(String));
      expect(doc.info.version).toEqual(expect.any(String));
      expect(Object.keys(doc.paths).length).toBeGreaterThan(0);
    });

    test('every component schema compiles under JSON Schema 2020-12 (ajv strict)', () => {
      for (const schema of Object.values(doc.components?.schemas ?? {})) {
        expect(() => compile(doc, schema)).not.toThrow();
      }
    });

    test('every request body, parameter and response schema compiles', () => {
      for (const { path, method, op } of operations(doc)) {
        const where = `${method.toUpperCase()} ${path}`;
        const schemas = [
          ...Object.values(op.requestBody?.content ?? {}).map((c) => c.schema),
          ...[...(doc.paths[path]!.parameters ?? []), ...(op.parameters ?? [])].map(
            (p) => p.schema,
          ),
          ...Object.values(op.responses).flatMap((r) => [
            ...Object.values(r.content ?? {}).map((c) => c.schema),
            ...Object.values(r.headers ?? {}).map((h) => h.schema),
          ]),
        ];
        for (const schema of schemas) {
          if (schema === undefined) continue;
          try {
            compile(doc, schema);
          } catch (error) {
            throw new Error(`${where}: ${(error as Error).message}`, { cause: error });
          }
        }
      }
    });

    test('every operation has a unique operationId, a success response and descriptions', () => {
      const ids = operations(doc).map(({ op }) => op.operationId);
      expect(ids.every((id) => typeof id === 'string')).toBe(true);
      expect(new Set(ids).size).toBe(ids.length);
      for (const { op } of operations(doc)) {
        const statuses = Object.keys(op.responses);
        expect(statuses.some((s) => /^2\d\d$/.test(s))).toBe(true);
        for (const [status, response] of Object.entries(op.responses)) {
          expect(status).toMatch(/^[1-5]\d\d$/);
          expect(response.description).toEqual(expect.any(String));
        }
      }
    });

    test('every path template parameter is declared as a required path parameter', () => {
      for (const { path, op } of operations(doc)) {
        const declared = [...(doc.paths[path]!.parameters ?? []), ...(op.parameters ?? [])]
          .filter((p) => p.in === 'path' && p.required === true)
          .map((p) => p.name)
          .sort();
        const inTemplate = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
        expect(declared).toEqual(inTemplate);
      }
    });

    test('every security requirement names a declared security scheme', () => {
      const schemes = Object.keys(doc.components?.securitySchemes ?? {});
      const requirements = [
        ...(doc.security ?? []),
        ...operations(doc).flatMap(({ op }) => op.security ?? []),
      ];
      for (const requirement of requirements) {
        for (const name of Object.keys(requirement)) expect(schemes).toContain(name);
      }
    });
  });

  test('the management document requires a bearer token except for its public routes', () => {
    expect(managementOpenApi.components?.securitySchemes?.adminToken).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
    expect(managementOpenApi.security).toEqual([{ adminToken: [] }]);
    for (const { path, op } of operations(managementOpenApi as unknown as Doc)) {
      if (path.startsWith('/admin/v1/')) {
        expect(op.security).toBeUndefined();
        expect(op.responses['401']).toBeDefined();
      } else {
        expect(op.security).toEqual([]);
      }
    }
  });
});
