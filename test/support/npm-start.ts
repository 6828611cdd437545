import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { stopChildGroup } from '../../bench/support/process-groups.js';
import { adminTokenOf } from './started-system.js';

/**
 * `npm start` as a person runs it, with nothing configured but free ports and the settings a
 * test gives, for the tests of the embedded default (test/integration/npm-start*.test.ts).
 */

export interface Started {
  child: ChildProcess;
  output: () => string;
  banner: {
    publicApi: string;
    gateway: string;
    managementApi: string;
    management: string;
    token: string;
    lines: Record<string, string>;
  };
}

export const running = new Set<ChildProcess>();

export function embeddedEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    ADMIN_PORT: '0',
    LOG_LEVEL: 'warn',
    AMQP_PREFIX: `test.start.${randomBytes(4).toString('hex')}`,
    ...extra,
  };
  // The embedded default: no admin tokens, MongoDB server, RabbitMQ or bind address configured.
  for (const name of ['ADMIN_TOKENS', 'MONGODB_URL', 'AMQP_URL', 'HOST', 'S3_ENDPOINT']) {
    delete env[name];
  }
  return env;
}

export function start(extra: Record<string, string>, args: string[] = []): Promise<Started> {
  const child = spawn('npm', ['start', '--silent', ...(args.length ? ['--', ...args] : [])], {
    env: embeddedEnv(extra),
    detached: true,
    stdio: 'pipe',
  });
  running.add(child);
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise<Started>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (!/Stop with Ctrl\+C/.test(output)) return;
      const lines: Record<string, string> = {};
      for (const m of output.matchAll(/^ {2}([A-Z][A-Za-z ]+):\s+(.+)$/gm)) lines[m[1]!] = m[2]!;
      const publicApi = lines['Public API']!;
      const managementApi = lines['Management API']!;
      resolve({
        child,
        output: () => output,
        banner: {
          publicApi,
          gateway: new URL(publicApi).origin,
          managementApi,
          management: new URL(managementApi).origin,
          token: adminTokenOf(lines['Admin token']!),
          lines,
        },
      });
    });
    child.once('exit', (code) => reject(new Error(`npm start exited (${code}): ${output}`)));
  });
}

export async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  await stopChildGroup(child, signal);
  running.delete(child);
}

/** Stops every `npm start` a test left running (its afterAll). */
export async function stopAll(): Promise<void> {
  for (const child of running) await stop(child);
}

/**
 * A product, its version 1.0.0 and a package file `filename` of `bytes`, through the management
 * API of a started system, as an admin does; the upload's answer.
 */
export async function uploadPackage(
  banner: Started['banner'],
  title: string,
  filename: string,
  bytes: Buffer,
): Promise<request.Response> {
  const admin = request(banner.management);
  const auth = { Authorization: `Bearer ${banner.token}` };
  const product = await admin.post('/admin/v1/products').set(auth).send({ title });
  const version = await admin
    .post(`/admin/v1/products/${product.body.data.id}/versions`)
    .set(auth)
    .send({ version: '1.0.0' });
  return admin
    .post(`/admin/v1/versions/${version.body.data.id}/files`)
    .set(auth)
    .attach('file', bytes, filename);
}

export function tempDir(): string {
  return mkdtempSync(path.join(tmpdir(), 'npm-start-'));
}
