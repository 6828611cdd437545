import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { ownSystemEnv, ServiceProcesses, type ServiceProcess } from '../support/processes.js';
import {
  answersNotTooLarge,
  LIMITED_ROUTES,
  UPLOAD_LIMIT_SETTING,
} from '../support/refused-bodies.js';
import { API_BASE } from '../support/system.js';

/**
 * With RabbitMQ and MongoDB running elsewhere, each service runs as its own process
 * (`npm run start:<service>`), any of them in several replicas. This starts every entry point as
 * an operator would, two license replicas among them, and goes through the public API.
 */
const AMQP_URL = process.env.AMQP_URL;
const withRabbit = AMQP_URL ? describe : describe.skip;

const ADMIN_TOKEN = randomBytes(16).toString('hex');

withRabbit('every service as its own process (npm run start:<service>)', () => {
  let processes: ServiceProcesses;
  let storage: string;
  let env: NodeJS.ProcessEnv;
  const start = (script: string, ready: string) => processes.start(script, ready);
  // Refusals wait long to be written together: only a stop that writes them keeps them.
  const startDownload = () =>
    processes.start('start:download', 'download service ready', {
      DOWNLOAD_LOG_BATCH_MS: '10000',
    });

  let gateway: string;
  let management: string;
  let download: ServiceProcess;

  beforeAll(async () => {
    storage = await mkdtemp(path.join(tmpdir(), 'separate-'));
    env = ownSystemEnv({
      label: 'procs',
      adminToken: ADMIN_TOKEN,
      storageDir: storage,
      // The 413 tests send sixty bodies a route, over the default per-IP limit.
      overrides: { RATE_LIMIT_PER_IP_PER_MINUTE: '1000', ...UPLOAD_LIMIT_SETTING },
    });
    processes = new ServiceProcesses(env);
    // The services first, so that their queues exist before the gateway takes requests.
    await Promise.all([
      start('start:update-catalog', 'update-catalog service ready'),
      start('start:license', 'license service ready'),
      start('start:license', 'license service ready'),
      start('start:webhooks', 'webhooks service ready'),
      startDownload().then((started) => (download = started)),
    ]);
    const [gatewayProcess, managementProcess] = await Promise.all([
      start('start:gateway', 'gateway listening'),
      start('start:management', 'management API listening'),
    ]);
    gateway = gatewayProcess.urlOf('gateway listening');
    management = managementProcess.urlOf('management API listening');
  }, 120_000);

  afterAll(async () => {
    await processes.stopAll();
    await rm(storage, { recursive: true, force: true });
  });

  const admin = (method: 'get' | 'post', route: string, body?: object) => {
    const call = request(management)[method](`/admin/v1${route}`);
    call.set('Authorization', `Bearer ${ADMIN_TOKEN}`);
    return body ? call.send(body) : call;
  };

  /** A product, a plan and a license on them, issued through the management process. */
  async function issueLicense(
    title: string,
    plan: { name: string; activation_type: string; activation_limit: number },
  ) {
    const product = (await admin('post', '/products', { title }).expect(201)).body.data;
    const created = (await admin('post', '/plans', plan).expect(201)).body.data;
    const license = (
      await admin('post', '/licenses', { product_id: product.id, plan_id: created.id }).expect(201)
    ).body.data;
    return { product, license };
  }

  test('activate, validate, the update check and a download go through the processes', async () => {
    const { product, license } = await issueLicense('Plugin', {
      name: 'Two sites',
      activation_type: 'domain',
      activation_limit: 2,
    });

    const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
    const activated = await request(gateway)
      .post(`${API_BASE}/licenses/activate`)
      .type('form')
      .send(form({ license_key: license.license_key, identifier: 'https://www.Shop.example/' }));
    expect(activated.status).toBe(200);
    expect(activated.body.data).toMatchObject({
      product: 'Plugin',
      plan: 'Two sites',
      identifier: 'shop.example',
      activations_used: 1,
    });
    const validated = await request(gateway)
      .post(`${API_BASE}/licenses/validate`)
      .type('form')
      .send(form({ dlid: license.license_key, identifier: 'shop.example' }));
    expect(validated.body.data).toMatchObject({ valid: true, identifier_activated: true });

    const version = (
      await admin('post', `/products/${product.id}/versions`, { version: '1.0.0' }).expect(201)
    ).body.data;
    const bytes = randomBytes(100_000);
    await admin('post', `/versions/${version.id}/files`)
      .attach('file', bytes, 'plugin-1.0.0.zip')
      .expect(201);

    const update = await request(gateway).get(
      `${API_BASE}/updates/${product.id}?license_key=${license.license_key}`,
    );
    expect(update.body.data).toMatchObject({
      update_available: true,
      version: '1.0.0',
      file_size: bytes.length,
      license_status: 'active',
    });
    // Built from the gateway's own address (PUBLIC_URL is unset here).
    expect(update.body.data.download_url).toBe(`${gateway}${API_BASE}/downloads/${product.id}`);

    const downloaded = await request(gateway)
      .get(`${API_BASE}/downloads/${product.id}?dlid=${license.license_key}`)
      .set('Accept', 'application/json')
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(downloaded.status).toBe(200);
    const digest = (data: Buffer) => createHash('sha256').update(data).digest('hex');
    expect(digest(downloaded.body as Buffer)).toBe(digest(bytes));
  });

  test.each(Object.entries(LIMITED_ROUTES))(
    'every client reads its 413, also one still sending the body: %s',
    async (_route, target) => {
      const system = { gatewayUrl: gateway, managementUrl: management, adminToken: ADMIN_TOKEN };
      expect(await answersNotTooLarge(target(system))).toEqual([]);
    },
  );

  test('the two license replicas share the work and keep the activation limit', async () => {
    const { license_key } = (
      await issueLicense('Tool', {
        name: 'Three devices',
        activation_type: 'device',
        activation_limit: 3,
      })
    ).license;
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        request(gateway)
          .post(`${API_BASE}/licenses/activate`)
          .type('form')
          .send(`license_key=${license_key}&identifier=device-${i}`),
      ),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(3);
    expect(responses.filter((r) => r.status === 403)).toHaveLength(9);
  });

  test('refusals answered just before the download service is stopped are all in the log', async () => {
    const product = (await admin('post', '/products', { title: 'Lapsed tool' }).expect(201)).body
      .data;
    const plan = (
      await admin('post', '/plans', {
        name: 'Lapsed',
        activation_type: 'domain',
        activation_limit: 1,
      }).expect(201)
    ).body.data;
    const { license_key } = (
      await admin('post', '/licenses', {
        product_id: product.id,
        plan_id: plan.id,
        expires_at: '2020-01-01T00:00:00Z',
      }).expect(201)
    ).body.data;
    const refusals = 25;
    const answers = await Promise.all(
      Array.from({ length: refusals }, () =>
        request(gateway)
          .get(`${API_BASE}/downloads/${product.id}?license_key=${license_key}`)
          .set('Accept', 'application/json'),
      ),
    );
    expect(answers.map((answer) => answer.body.error?.code)).toEqual(
      Array(refusals).fill('LICENSE_EXPIRED'),
    );
    // At once: the refusals are still waiting for their batch to be written.
    expect(await download.stop()).toBe(true);
    download = await startDownload();
    const log = (
      await admin('get', `/download-log?refused=true&product_id=${product.id}&per_page=100`).expect(
        200,
      )
    ).body.data;
    expect(log.total).toBe(refusals);
    expect(log.entries.map((entry: { reason: string }) => entry.reason)).toEqual(
      Array(refusals).fill('LICENSE_EXPIRED'),
    );
  }, 120_000);

  test('a process names every setting to fix at once, one a line, without a stack trace', async () => {
    // As short as .env.example's placeholder, and two addresses left unset.
    const child = spawn('npm', ['run', 'start:download', '--silent'], {
      env: { ...env, DOWNLOAD_SIGNING_KEY: 'change-me', AMQP_URL: '', MONGODB_URL: '' },
      stdio: 'pipe',
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    const lines = output
      .split('\n')
      .filter((line) => line.trim() !== '' && !line.startsWith('{') && !/^npm warn/i.test(line));
    expect(lines).toEqual([
      'download cannot start; fix these settings:',
      '  DOWNLOAD_SIGNING_KEY: must be at least 16 characters (`openssl rand -hex 32` makes one)',
      '  AMQP_URL: required when this service runs as its own process',
      '  MONGODB_URL: required when this service runs as its own process',
    ]);
  }, 60_000);

  test('a gateway without its signing key names it (or the file that may hold it)', async () => {
    const child = spawn('npm', ['run', 'start:gateway', '--silent'], {
      env: { ...env, SIGNING_KEY: '' },
      stdio: 'pipe',
    });
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(1);
    expect(output).toContain(
      '  SIGNING_KEY (or SIGNING_KEY_FILE): required when this service runs as its own process\n',
    );
    expect(output).not.toMatch(/^\s+at /m);
  }, 60_000);
});
