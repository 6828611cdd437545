import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import {
  embeddedEnv,
  start,
  stop,
  stopAll,
  tempDir,
  uploadPackage,
  type Started,
} from '../support/npm-start.js';
import {
  answersNotTooLarge,
  LIMITED_ROUTES,
  UPLOAD_LIMIT_SETTING,
} from '../support/refused-bodies.js';
import { signatureProblem } from '../support/signed-answers.js';

/**
 * `npm start` runs the whole system in one process on the embedded defaults, keeps what it
 * stores in DATA_DIR so a restart loses nothing, and says what it runs on. These tests start it
 * exactly as a person would, with nothing configured but free ports.
 */

afterAll(stopAll);

/** The public API's path, `{api_base}`, as the banner names it. */
const pathOf = (started: Started) => new URL(started.banner.publicApi).pathname;

/** Command lines of this machine's processes: the embedded mongod is one of them. */
function processArgs(): string {
  return execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' });
}

describe('npm start (the embedded default)', () => {
  test('says what it runs on, and a license can be activated through it', async () => {
    const dataDir = tempDir();
    try {
      const { child, banner } = await start({ DATA_DIR: dataDir });
      expect(banner.lines).toMatchObject({
        'Message bus': 'in-process message bus',
        Database: `embedded MongoDB, data in ${path.join(dataDir, 'mongodb')}`,
        'Package storage': `embedded S3 store, files in ${path.join(dataDir, 'packages')}`,
        'Data directory': dataDir,
      });
      // Loopback unless HOST says otherwise: not reachable from the network by accident.
      expect(banner.publicApi).toMatch(
        /^http:\/\/127\.0\.0\.1:\d+\/api\/index\.php\/v1\/licensing$/,
      );
      expect(banner.managementApi).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/admin\/v1$/);
      // The web pages: the admin console and the customer portal, and the API reference.
      expect(banner.lines).toMatchObject({
        'Admin console': `${banner.management}/`,
        'Customer portal': `${banner.gateway}/portal`,
        'API reference': `${banner.gateway}/docs, ${banner.management}/docs`,
      });
      const portal = await request(banner.gateway).get('/portal');
      expect([portal.status, portal.headers['content-type']]).toEqual([
        200,
        expect.stringMatching(/^text\/html/),
      ]);

      const admin = request(banner.management);
      const auth = { Authorization: `Bearer ${banner.token}` };
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

      const res = await request(banner.gateway)
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
      await stop(child);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  test('a restart keeps the admin token, the package files and the database directory', async () => {
    const dataDir = tempDir();
    try {
      const first = await start({ DATA_DIR: dataDir });
      const tokenFile = path.join(dataDir, 'admin-token');
      expect(first.banner.lines['Admin token']).toBe(
        `${first.banner.token.slice(0, 4)}…   (kept in ${tokenFile})`,
      );
      expect(readFileSync(tokenFile, 'utf8').trim()).toBe(first.banner.token);
      // Printed once, shortened: the whole token never reaches the terminal.
      expect(first.output()).not.toContain(first.banner.token);
      // The embedded MongoDB server keeps its files in DATA_DIR/mongodb.
      expect(processArgs()).toContain(`--dbpath ${path.join(dataDir, 'mongodb')}`);

      const upload = await uploadPackage(
        first.banner,
        'Kept',
        'kept-1.0.0.zip',
        Buffer.from('a package kept across restarts'),
      );
      expect(upload.status).toBe(201);
      const stored = () =>
        readdirSync(path.join(dataDir, 'packages'), { recursive: true, encoding: 'utf8' }).filter(
          (name) => name.includes('kept-1.0.0.zip'),
        );
      expect(stored().length).toBeGreaterThan(0);
      await stop(first.child);

      const second = await start({ DATA_DIR: dataDir });
      expect(second.banner.token).toBe(first.banner.token);
      expect(stored().length).toBeGreaterThan(0);
      const again = await request(second.banner.management)
        .get('/admin/v1/plans')
        .set({ Authorization: `Bearer ${first.banner.token}` });
      expect(again.status).toBe(200);
      await stop(second.child);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);

  test('a restart keeps the signing key: an answer signed before it verifies after it', async () => {
    const dataDir = tempDir();
    try {
      const first = await start({ DATA_DIR: dataDir });
      const keyFile = path.join(dataDir, 'signing-key.pem');
      // Readable by this user only: it signs in the service's name.
      expect(statSync(keyFile).mode & 0o777).toBe(0o600);
      const keys = await request(first.banner.gateway).get(`${pathOf(first)}/keys`);
      const kid = keys.body.keys[0].kid as string;
      expect(first.banner.lines['Signing key']).toBe(`${kid}   (kept in ${keyFile})`);
      const sent = { method: 'GET', target: `${pathOf(first)}/updates/12345` };
      const res = await request(first.banner.gateway).get(sent.target);
      const answer = { status: res.status, headers: res.headers, text: res.text };
      expect(await signatureProblem(answer, sent, keys.body)).toBeNull();
      await stop(first.child);

      const second = await start({ DATA_DIR: dataDir });
      const after = await request(second.banner.gateway).get(`${pathOf(second)}/keys`);
      expect(after.body).toEqual(keys.body);
      expect(second.banner.lines['Signing key']).toBe(first.banner.lines['Signing key']);
      expect(await signatureProblem(answer, sent, after.body)).toBeNull();
      await stop(second.child);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);

  test('Ctrl+C: the embedded database outlives the signal, so the last refusals are written', async () => {
    const dataDir = tempDir();
    try {
      // Refusals wait long for their batch: only the stop writes them.
      const { child, banner, output } = await start({
        DATA_DIR: dataDir,
        DOWNLOAD_LOG_BATCH_MS: '10000',
      });
      const refused = await request(banner.gateway)
        .get(`${new URL(banner.publicApi).pathname}/downloads/1?license_key=no-such-key`)
        .set('Accept', 'application/json');
      expect(refused.status).toBeGreaterThanOrEqual(400);
      // Ctrl+C in a terminal: SIGINT to the whole process group, the database's too.
      await stop(child, 'SIGINT');
      expect(output()).not.toMatch(/could not write the download log/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('--ephemeral keeps nothing', async () => {
    const dataDir = tempDir();
    try {
      const { child, banner } = await start({ DATA_DIR: dataDir }, ['--ephemeral']);
      expect(banner.lines['Data directory']).toMatch(/^none/);
      expect(banner.lines.Database).toMatch(/temporary directory, removed at stop/);
      expect(banner.lines['Admin token']).toBe(
        `${banner.token}   (this run only: nothing is kept)`,
      );
      // A signing key of this run alone.
      expect(banner.lines['Signing key']).toMatch(/^[A-Za-z0-9_-]{43}$/);
      await stop(child);
      expect(readdirSync(dataDir)).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  test('every client reads its 413, also one still sending the body', async () => {
    const { child, banner } = await start(
      // Sixty bodies a route, over the license operations' per-IP limit, which would answer 429.
      { RATE_LIMIT_PER_IP_PER_MINUTE: '1000', ...UPLOAD_LIMIT_SETTING },
      ['--ephemeral'],
    );
    const system = {
      gatewayUrl: banner.gateway,
      managementUrl: banner.management,
      adminToken: banner.token,
    };
    const problems: Record<string, string[]> = {};
    for (const [route, target] of Object.entries(LIMITED_ROUTES)) {
      problems[route] = await answersNotTooLarge(target(system));
    }
    expect(problems).toEqual(Object.fromEntries(Object.keys(LIMITED_ROUTES).map((r) => [r, []])));
    await stop(child);
  }, 120_000);

  test('DOWNLOAD_DELIVERY=redirect on the embedded package store is refused: S3_ENDPOINT is named', async () => {
    const child = spawn('npm', ['start', '--silent'], {
      env: embeddedEnv({ DATA_DIR: '', DOWNLOAD_DELIVERY: 'redirect' }),
      stdio: 'pipe',
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    expect(await new Promise((resolve) => child.once('exit', resolve))).toBe(1);
    const lines = output
      .split('\n')
      .filter((line) => line.trim() !== '' && !/^npm warn/i.test(line));
    expect(lines).toEqual([
      'all-in-one cannot start; fix these settings:',
      expect.stringMatching(/^ {2}DOWNLOAD_DELIVERY: redirect needs S3_ENDPOINT \(MinIO or S3\)/),
    ]);
  }, 60_000);

  test('an embedded MongoDB that cannot start is one line saying what to set, no stack trace', async () => {
    const child = spawn('npm', ['start', '--silent'], {
      env: embeddedEnv({ DATA_DIR: '', MONGOMS_SYSTEM_BINARY: '/nonexistent/mongod' }),
      stdio: 'pipe',
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    const lines = output
      .split('\n')
      .filter((line) => line.trim() !== '' && !/^npm warn/i.test(line));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/embedded MongoDB server could not be started/);
    expect(lines[0]).toMatch(/MONGODB_URL/);
    expect(lines[0]).toMatch(/MONGOMS_SYSTEM_BINARY/);
    expect(output).not.toMatch(/^\s+at /m);
    expect(existsSync('/nonexistent')).toBe(false);
  }, 60_000);
});
