import request from 'supertest';
import type { AdminWithToken } from '../../libs/contracts/index.js';
import { createLogger } from '../../libs/logging/index.js';
import { InProcessBus, InProcessTransport } from '../../libs/transport/index.js';
import { MAX_FAILED_ATTEMPTS } from '../../services/management/admins/failed-attempts.js';
import { TEST_ADMIN_TOKEN, managementApp } from '../support/management-app.js';

/**
 * The bound on failed attempts per admin token id through HTTP (docs/api-decisions.md, "Admins
 * and roles"): a refused id gets the answer of a wrong token, so nothing tells the two apart.
 */

const BASE = '/admin/v1';

test('a token id past its failed attempts gets the 401 of a wrong token, right secret too', async () => {
  const logger = createLogger('management', 'silent');
  const app = managementApp(
    new InProcessTransport(new InProcessBus(), { timeoutMs: 10_000, logger }),
  );
  const made = await request(app)
    .post(`${BASE}/admins`)
    .set('Authorization', `Bearer ${TEST_ADMIN_TOKEN}`)
    .send({ name: 'Ada', role: 'owner' });
  expect(made.status).toBe(201);
  const ada = made.body.data as AdminWithToken;
  const me = async (token: string) => {
    const res = await request(app).get(`${BASE}/me`).set('Authorization', `Bearer ${token}`);
    return [res.status, res.headers['www-authenticate'], res.body] as const;
  };

  const wrong = await me(`adm_${ada.tokens[0]!.id}_${'A'.repeat(43)}`);
  expect(wrong).toEqual([
    401,
    'Bearer realm="licensing-management", error="invalid_token"',
    { error: { code: 'UNAUTHORIZED', message: 'The admin token is not valid.' } },
  ]);
  for (let i = 1; i < MAX_FAILED_ATTEMPTS; i++) {
    expect(await me(`adm_${ada.tokens[0]!.id}_${'B'.repeat(42)}${i % 10}`)).toEqual(wrong);
  }
  expect(await me(ada.token)).toEqual(wrong);
  expect(await me(`adm_0123456789abcdef_${'A'.repeat(43)}`)).toEqual(wrong);
});
