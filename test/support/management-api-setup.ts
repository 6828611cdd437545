/**
 * What the management API's tests share: the system they run against (importing this module
 * boots it before the file's tests and stops it after them), the admin calls, and helpers that
 * create a product, a plan or a license through the API.
 */
import type request from 'supertest';
import type { LicenseDetail, Plan, Product } from '../../libs/contracts/index.js';
import { ADMIN_TOKEN, adminOf, bootSystem, unique, type TestSystem } from './system.js';

export let system: TestSystem;
beforeAll(async () => {
  system = await bootSystem();
});
afterAll(() => system?.stop());

export const BASE = '/admin/v1';
export const AUTH = `Bearer ${ADMIN_TOKEN}`;
export const PAST = '2020-01-01T00:00:00.000Z';
export const FUTURE = '2099-01-01T00:00:00.000Z';

export const { get, post, patch, del } = adminOf(() => system);

export const licensePath = (key: string) => `/licenses/${encodeURIComponent(key)}`;

export function expectError(res: request.Response, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual({
    error: expect.objectContaining({ code, message: expect.any(String) }),
  });
  expect(res.text).not.toMatch(/<html|at .*\.ts:\d+/i);
}

export async function createProduct(body: Record<string, unknown> = {}): Promise<Product> {
  const res = await post('/products', { title: `Product ${unique()}`, ...body });
  expect(res.status).toBe(201);
  return res.body.data as Product;
}

export async function createPlan(body: Record<string, unknown> = {}): Promise<Plan> {
  const res = await post('/plans', {
    name: `Plan ${unique()}`,
    activation_type: 'domain',
    activation_limit: 3,
    ...body,
  });
  expect(res.status).toBe(201);
  return res.body.data as Plan;
}

export async function createLicense(
  options: { plan?: Record<string, unknown>; license?: Record<string, unknown> } = {},
): Promise<LicenseDetail> {
  const product = await createProduct();
  const plan = await createPlan(options.plan);
  const res = await post('/licenses', {
    product_id: product.id,
    plan_id: plan.id,
    ...options.license,
  });
  expect(res.status).toBe(201);
  return res.body.data as LicenseDetail;
}

export async function detail(key: string): Promise<LicenseDetail> {
  const res = await get(licensePath(key));
  expect(res.status).toBe(200);
  return res.body.data as LicenseDetail;
}
