import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { defineRoute, sendData, type Route } from '../../libs/http/index.js';
import type { GatewayDeps } from './gateway-deps.js';
import { API_BASE } from '../../libs/contracts/api-base.js';

/**
 * The project's package.json: the nearest one above this file, so it is found from the sources
 * (tsx) and from the build (`dist/services/gateway`, beside which the image copies package.json).
 */
function packageInfo(): { name: string; version: string } {
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = path.join(directory, 'package.json');
    if (existsSync(file)) {
      const { name, version } = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      return { name: String(name), version: String(version) };
    }
    const parent = path.dirname(directory);
    if (parent === directory) return { name: 'licensing-service', version: 'unknown' };
    directory = parent;
  }
}

const ApiIndex = z.object({
  name: z.string().meta({ description: 'The name of the software answering.' }),
  version: z.string().meta({ description: 'Its version.' }),
  links: z.object({
    docs: z.string().meta({ description: 'The API reference.' }),
    portal: z.string().meta({ description: 'The customer portal.' }),
    api: z.string().meta({ description: 'The base path of the public API.' }),
  }),
});

/**
 * `GET /`: what someone who opens the public address finds, where a 404 would leave them
 * guessing: what answers, its version, and the way on. Paths, not URLs: they hold behind any
 * proxy.
 */
export function indexRoute(): Route<GatewayDeps> {
  const index = { ...packageInfo(), links: { docs: '/docs', portal: '/portal', api: API_BASE } };
  return defineRoute({
    method: 'get',
    path: '/',
    operationId: 'apiIndex',
    summary:
      'What answers at this address, its version, and links to the reference, the portal and the API.',
    tag: 'Operations',
    access: 'public',
    success: { 200: { description: 'The index.', data: ApiIndex } },
    errors: {},
    handle: async (_input, _deps, _req, res) => {
      sendData(res, index);
    },
  });
}
