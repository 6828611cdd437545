import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { stopChildGroup } from '../../bench/support/process-groups.js';

/**
 * The system as `npm start` starts it (every service in one process, embedded defaults, its
 * data in a directory of its own), for the tests that use it as its users do: the README, the
 * web pages in a browser. Ports are free ones; everything else is the default.
 */
export interface StartedSystem {
  gatewayUrl: string;
  managementUrl: string;
  adminToken: string;
  stop(): Promise<void>;
}

/** A call of the management API with the system's admin token; its `data`, or a failure. */
export async function adminCall<T>(
  system: StartedSystem,
  method: string,
  path: string,
  body?: object,
): Promise<T> {
  const response = await fetch(`${system.managementUrl}/admin/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${system.adminToken}`, 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = (await response.json()) as { data: T };
  if (!response.ok) throw new Error(`${method} ${path}: ${JSON.stringify(answer)}`);
  return answer.data;
}

/**
 * The admin token the banner names: read from the file it is kept in, or the line itself when
 * it is of this run alone (the banner shows a kept token by its first characters only).
 */
export function adminTokenOf(line: string): string {
  const kept = /\(kept in (.+)\)$/.exec(line)?.[1];
  return kept ? readFileSync(kept, 'utf8').trim() : line.split(/\s+/)[0]!;
}

/** `settings`: environment variables a test needs set otherwise than by default. */
export async function startLikeNpmStart(
  settings: Record<string, string> = {},
): Promise<StartedSystem> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'started-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: '0',
    ADMIN_PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    AMQP_PREFIX: `test.started.${randomBytes(4).toString('hex')}`,
    ...settings,
  };
  for (const name of ['ADMIN_TOKENS', 'MONGODB_URL', 'AMQP_URL', 'HOST', 'S3_ENDPOINT']) {
    delete env[name];
  }
  const child: ChildProcess = spawn('npm', ['start', '--silent'], {
    env,
    detached: true,
    stdio: 'pipe',
  });
  let output = '';
  const lines = await new Promise<Record<string, string>>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      if (!output.includes('Stop with Ctrl+C')) return;
      const found: Record<string, string> = {};
      for (const m of output.matchAll(/^ {2}([A-Z][A-Za-z ]+):\s+(.+)$/gm)) found[m[1]!] = m[2]!;
      resolve(found);
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`npm start exited (${code}): ${output}`)));
  });
  return {
    gatewayUrl: new URL(lines['Public API']!).origin,
    managementUrl: new URL(lines['Management API']!).origin,
    adminToken: adminTokenOf(lines['Admin token']!),
    stop: async () => {
      await stopChildGroup(child);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Where the browser tests keep a screenshot of every page they saw (git-ignored). */
export const SCREENSHOTS = path.resolve(
  import.meta.dirname,
  '..',
  '..',
  'test-output',
  'screenshots',
);

/**
 * Saves a full-page screenshot under SCREENSHOTS (`name` may hold a folder: `pages/...`), so a
 * person can look at what the test saw.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const file = path.join(SCREENSHOTS, `${name}.png`);
  mkdirSync(path.dirname(file), { recursive: true });
  await page.screenshot({ path: file, fullPage: true });
}
