import request from 'supertest';
import type { AdminRole, AdminWithToken } from '../../libs/contracts/index.js';
import { parseToken } from '../../services/management/admins/admin-tokens.js';
import { requiredRole, roleAllows } from '../../services/management/admins/roles.js';
import { managementRoutes } from '../../services/management/routes.js';
import { databaseOf } from '../support/databases.js';
import { ADMIN_TOKEN, bootSystem, type TestSystem } from '../support/system.js';

/**
 * Named admins and their roles through real HTTP: every admin route of the route table against
 * every role, tokens made and revoked, the last owner kept (docs/api-decisions.md, "Admins and
 * roles").
 */

let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

const BASE = '/admin/v1';
const bearer = (token: string) => `Bearer ${token}`;
const BOOTSTRAP = bearer(ADMIN_TOKEN);
const UNKNOWN_ID = 987654321;

let seq = 0;
const unique = (name: string) => `${name} ${Date.now().toString(36)}${(seq++).toString(36)}`;

async function newAdmin(role: AdminRole, name = unique(role)): Promise<AdminWithToken> {
  const res = await system
    .admin()
    .post(`${BASE}/admins`)
    .set('Authorization', BOOTSTRAP)
    .send({ name, role });
  expect(res.status).toBe(201);
  return res.body.data as AdminWithToken;
}

/** The secret of an admin token, whole: a secret may hold `_` itself. */
function secretOf(token: string): string {
  const parsed = parseToken(token);
  if (!parsed) throw new Error(`not an admin token: ${token}`);
  return parsed.secret;
}

function expectError(res: request.Response, status: number, code: string) {
  expect([res.status, res.body]).toEqual([
    status,
    { error: expect.objectContaining({ code, message: expect.any(String) }) },
  ]);
}

/** A concrete path of a route: ids unknown, other parameters a word. */
function concrete(path: string): string {
  return path.replace(/:(\w+)/g, (_m, name: string) =>
    name === 'id' ? String(UNKNOWN_ID) : name === 'token_id' ? '0123456789abcdef' : `probe-${name}`,
  );
}

const adminRoutes = managementRoutes.filter((route) => route.access === 'admin');

describe('each role against each route of the route table', () => {
  const tokens = {} as Record<AdminRole, string>;
  beforeAll(async () => {
    for (const role of ['viewer', 'support', 'owner'] as const) {
      tokens[role] = (await newAdmin(role)).token;
    }
  });

  const cases = adminRoutes.flatMap((route) =>
    (['viewer', 'support', 'owner'] as const).map((role) => ({
      route,
      role,
      name: `${route.method.toUpperCase()} ${route.path} as ${role}`,
    })),
  );

  test.each(cases)('$name', async ({ route, role }) => {
    const agent = request(system.running.managementUrl);
    let req = agent[route.method](concrete(route.path)).set('Authorization', bearer(tokens[role]));
    if (route.method !== 'get' && route.method !== 'delete') req = req.send({});
    const res = await req;
    if (roleAllows(role, requiredRole(route))) {
      expect([res.status, res.body?.error?.code]).not.toEqual([403, 'FORBIDDEN']);
    } else {
      expectError(res, 403, 'FORBIDDEN');
      expect(res.body.error.message).toContain(role);
    }
  });
});

describe('what a refused role does not do', () => {
  test('a viewer changes nothing: 403, and no product is made', async () => {
    const viewer = await newAdmin('viewer');
    const title = unique('Refused product');
    const res = await system
      .admin()
      .post(`${BASE}/products`)
      .set('Authorization', bearer(viewer.token))
      .send({ title });
    expectError(res, 403, 'FORBIDDEN');
    const products = await system.admin().get(`${BASE}/products`).set('Authorization', BOOTSTRAP);
    expect(JSON.stringify(products.body)).not.toContain(title);
  });

  test('support issues and changes licenses but cannot change the catalog', async () => {
    const support = bearer((await newAdmin('support')).token);
    const { product, plan } = await system.license();
    const issued = await system
      .admin()
      .post(`${BASE}/licenses`)
      .set('Authorization', support)
      .send({ product_id: product.id, plan_id: plan.id });
    expect(issued.status).toBe(201);
    const key = issued.body.data.license_key as string;
    const changed = await system
      .admin()
      .patch(`${BASE}/licenses/${key}`)
      .set('Authorization', support)
      .send({ activation_limit: 7 });
    expect([changed.status, changed.body.data?.activation_limit]).toEqual([200, 7]);
    const plans = await system
      .admin()
      .patch(`${BASE}/plans/${plan.id}`)
      .set('Authorization', support)
      .send({ name: 'Renamed by support' });
    expectError(plans, 403, 'FORBIDDEN');
  });
});

describe('GET /admin/v1/me', () => {
  test('names the admin, their role and the operations the role may call', async () => {
    const viewer = await newAdmin('viewer', 'Vera Viewer');
    const res = await system.admin().get(`${BASE}/me`).set('Authorization', bearer(viewer.token));
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: viewer.id,
      name: 'Vera Viewer',
      role: 'viewer',
      bootstrap: false,
      token_id: viewer.tokens[0]!.id,
    });
    expect(res.body.data.operations).toContain('searchLicenses');
    expect(res.body.data.operations).not.toContain('updateLicense');
    expect(res.body.data.operations).not.toContain('listAdmins');
  });

  test('a token of ADMIN_TOKENS is the bootstrap owner', async () => {
    const res = await system.admin().get(`${BASE}/me`).set('Authorization', BOOTSTRAP);
    expect(res.body.data).toMatchObject({ id: 0, role: 'owner', bootstrap: true, token_id: null });
    expect(res.body.data.operations).toContain('createAdmin');
  });
});

describe('tokens', () => {
  const me = (token: string) =>
    system.admin().get(`${BASE}/me`).set('Authorization', bearer(token));

  test('a new admin gets a token shown once; the list shows its id, never the secret', async () => {
    const ada = await newAdmin('support', 'Ada');
    expect(ada.token).toMatch(new RegExp(`^adm_${ada.tokens[0]!.id}_`));
    expect((await me(ada.token)).status).toBe(200);
    const list = await system.admin().get(`${BASE}/admins`).set('Authorization', BOOTSTRAP);
    const listed = (list.body.data.admins as Array<{ id: number }>).find((a) => a.id === ada.id);
    expect(listed).toMatchObject({
      name: 'Ada',
      role: 'support',
      tokens: [{ id: ada.tokens[0]!.id }],
    });
    expect(list.text).not.toContain(secretOf(ada.token));
  });

  test('tokens are stored hashed: the database holds no secret', async () => {
    const ada = await newAdmin('viewer');
    const db = await databaseOf(system, 'management');
    try {
      const stored = await db.collection('admins').findOne({ _id: ada.id as never });
      const text = JSON.stringify(stored);
      expect(text).not.toContain(secretOf(ada.token));
      expect(text).toMatch(/scrypt\$/);
    } finally {
      await db.close();
    }
  });

  test('another token works beside the first; a revoked one is refused with 401 at once', async () => {
    const ada = await newAdmin('viewer');
    const made = await system
      .admin()
      .post(`${BASE}/admins/${ada.id}/tokens`)
      .set('Authorization', BOOTSTRAP);
    expect(made.status).toBe(201);
    const second = made.body.data.token as string;
    expect((await me(second)).status).toBe(200);
    const revoked = await system
      .admin()
      .delete(`${BASE}/admins/${ada.id}/tokens/${made.body.data.id}`)
      .set('Authorization', BOOTSTRAP);
    expect([revoked.status, revoked.body.data.id]).toEqual([200, made.body.data.id]);
    expectError(await me(second), 401, 'UNAUTHORIZED');
    expect((await me(ada.token)).status).toBe(200);
    const again = await system
      .admin()
      .delete(`${BASE}/admins/${ada.id}/tokens/${made.body.data.id}`)
      .set('Authorization', BOOTSTRAP);
    expectError(again, 404, 'NOT_FOUND');
  });

  test("a lesser role holds from the admin's next request", async () => {
    const ada = await newAdmin('owner');
    expect((await me(ada.token)).body.data.role).toBe('owner');
    await system
      .admin()
      .patch(`${BASE}/admins/${ada.id}`)
      .set('Authorization', BOOTSTRAP)
      .send({ role: 'viewer' });
    const res = await system
      .admin()
      .post(`${BASE}/products`)
      .set('Authorization', bearer(ada.token))
      .send({ title: 'Not any more' });
    expectError(res, 403, 'FORBIDDEN');
  });

  test("a removed admin's tokens are refused with 401", async () => {
    const ada = await newAdmin('support');
    expect((await me(ada.token)).status).toBe(200);
    const removed = await system
      .admin()
      .delete(`${BASE}/admins/${ada.id}`)
      .set('Authorization', BOOTSTRAP);
    expect(removed.status).toBe(200);
    expectError(await me(ada.token), 401, 'UNAUTHORIZED');
  });

  test('a token that only looks like one, or names no admin, gets 401', async () => {
    expectError(await me(`adm_0123456789abcdef_${'x'.repeat(43)}`), 401, 'UNAUTHORIZED');
    expectError(await me('adm_nothing'), 401, 'UNAUTHORIZED');
  });

  test('a name must be one line of at most 100 characters; a role one of the three', async () => {
    for (const body of [
      { name: '', role: 'viewer' },
      { name: 'x'.repeat(101), role: 'viewer' },
      { name: 'two\nlines', role: 'viewer' },
      { name: 'Ada', role: 'admin' },
      { name: 'Ada' },
    ]) {
      const res = await system
        .admin()
        .post(`${BASE}/admins`)
        .set('Authorization', BOOTSTRAP)
        .send(body);
      expectError(res, 400, 'INVALID_REQUEST');
    }
  });
});

describe('the last owner (409 LAST_OWNER)', () => {
  test('cannot be demoted or removed while no other named owner is left; then can', async () => {
    const last = await newAdmin('owner', 'Last Owner');
    // Every other named owner of this system becomes a viewer.
    const list = await system.admin().get(`${BASE}/admins`).set('Authorization', BOOTSTRAP);
    for (const admin of list.body.data.admins as Array<{ id: number; role: string }>) {
      if (admin.role !== 'owner' || admin.id === last.id) continue;
      const res = await system
        .admin()
        .patch(`${BASE}/admins/${admin.id}`)
        .set('Authorization', BOOTSTRAP)
        .send({ role: 'viewer' });
      expect(res.status).toBe(200);
    }
    const others = (await system.admin().get(`${BASE}/admins`).set('Authorization', BOOTSTRAP)).body
      .data.admins as Array<{ role: string }>;
    expect(others.filter((a) => a.role === 'owner')).toHaveLength(1);

    const demote = await system
      .admin()
      .patch(`${BASE}/admins/${last.id}`)
      .set('Authorization', bearer(last.token))
      .send({ role: 'support' });
    expectError(demote, 409, 'LAST_OWNER');
    expect(demote.body.error.message).toMatch(/last owner/i);
    const remove = await system
      .admin()
      .delete(`${BASE}/admins/${last.id}`)
      .set('Authorization', bearer(last.token));
    expectError(remove, 409, 'LAST_OWNER');
    const still = await system
      .admin()
      .get(`${BASE}/admins/${last.id}`)
      .set('Authorization', BOOTSTRAP);
    expect(still.body.data.role).toBe('owner');

    const next = await newAdmin('owner', 'Next Owner');
    const removed = await system
      .admin()
      .delete(`${BASE}/admins/${last.id}`)
      .set('Authorization', bearer(next.token));
    expect(removed.status).toBe(200);
  });
});
