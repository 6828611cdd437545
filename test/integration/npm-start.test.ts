import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import request from 'supertest';

/**
 * Issue 2: `npm start` runs the whole system in one process on the embedded default and prints
 * the gateway URL, the management URL and an admin token. This boots it exactly that way.
 */
describe('npm start (the embedded default)', () => {
  let child: ChildProcess | undefined;
  let output = '';

  afterAll(async () => {
    if (!child?.pid) return;
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    process.kill(-child.pid, 'SIGTERM');
    await exited;
  });

  test('prints its URLs and an admin token, and a license can be activated through it', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PORT: '0',
      ADMIN_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      AMQP_PREFIX: `test.start.${randomBytes(4).toString('hex')}`,
    };
    // The embedded default: no admin tokens, MongoDB server or RabbitMQ configured.
    delete env.ADMIN_TOKENS;
    delete env.MONGODB_URL;
    delete env.AMQP_URL;
    child = spawn('npm', ['start', '--silent'], { env, detached: true, stdio: 'pipe' });
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const printed = await new Promise<Record<string, string>>((resolve, reject) => {
      child!.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        const gateway = /Gateway:\s+(http:\/\/\S+)/.exec(output)?.[1];
        const management = /Management API:\s+(http:\/\/\S+)\/admin\/v1/.exec(output)?.[1];
        const token = /Admin token:\s+(\S+)/.exec(output)?.[1];
        if (gateway && management && token) resolve({ gateway, management, token });
      });
      child!.once('exit', (code) => reject(new Error(`npm start exited (${code}): ${output}`)));
    });

    const admin = request(printed.management!);
    const auth = { Authorization: `Bearer ${printed.token}` };
    const product = await admin
      .post('/admin/v1/products')
      .set(auth)
      .send({ title: 'Started Plugin' });
    expect(product.status).toBe(201);
    const plan = await admin
      .post('/admin/v1/plans')
      .set(auth)
      .send({ name: 'Single site', activation_type: 'domain', activation_limit: 1 });
    expect(plan.status).toBe(201);
    const license = await admin
      .post('/admin/v1/licenses')
      .set(auth)
      .send({ product_id: product.body.data.id, plan_id: plan.body.data.id });
    expect(license.status).toBe(201);

    const res = await request(printed.gateway!)
      .post('/api/index.php/v1/licensing/licenses/activate')
      .type('form')
      .send({
        license_key: license.body.data.license_key,
        identifier: 'https://www.example.com',
        product_id: String(product.body.data.id),
      });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: 'active',
      product: 'Started Plugin',
      plan: 'Single site',
      identifier: 'example.com',
      activations_used: 1,
    });
  }, 120_000);
});
