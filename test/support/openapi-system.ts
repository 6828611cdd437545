/**
 * What the OpenAPI tests that call the running system share: the system (importing this module
 * boots it before the file's tests and stops it after them), the Express apps it listens with,
 * the routes they register and a call to any of them.
 */
import { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { jest } from '@jest/globals';
import { type Express } from 'express';
import request from 'supertest';
import { operations, type Doc, type Method } from './openapi-documents.js';
import { ADMIN_TOKEN, bootSystem, type TestSystem } from './system.js';
import { WebhookReceiver } from './webhook-receiver.js';

export const AUTH = `Bearer ${ADMIN_TOKEN}`;

export let system: TestSystem;
/** Where the webhook endpoint of the webhooks test points: on loopback, so nothing leaves. */
export let receiver: WebhookReceiver;
/** The Express apps the running system listens with, found by the port they listen on. */
export const runningApps = new Map<number, Express>();
beforeAll(async () => {
  receiver = await WebhookReceiver.start();
  const listen = jest.spyOn(Server.prototype, 'listen');
  try {
    // Its package store through S3_ENDPOINT, as redirect mode needs (the downloads test).
    system = await bootSystem({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' }, { ownStore: true });
    // Read before mockRestore(), which also clears what the spy recorded. Each server's request
    // listener is the Express app it serves.
    for (const server of listen.mock.contexts as Server[]) {
      const [app] = server.listeners('request');
      const address = server.address() as AddressInfo | null;
      if (address && app) runningApps.set(address.port, app as unknown as Express);
    }
  } finally {
    listen.mockRestore();
  }
});
afterAll(async () => {
  await system?.stop();
  await receiver?.stop();
});

export function runningApp(url: string): Express {
  const app = runningApps.get(Number(new URL(url).port));
  if (!app) throw new Error(`no app listens on ${url}`);
  return app;
}

// ---- Routes registered on the Express apps ----

export interface RouterLayer {
  route?: { path: unknown; methods: Record<string, boolean> };
  handle: unknown;
  rawPath?: unknown;
}

export function isRouter(handle: unknown): handle is { stack: RouterLayer[] } {
  return typeof handle === 'function' && Array.isArray((handle as { stack?: unknown }).stack);
}

/** "GET /admin/v1/products/{id}" for every route, walking mounted routers (Express 5). */
export function registeredRoutes(app: Express): string[] {
  const found: string[] = [];
  const walk = (stack: RouterLayer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        if (typeof layer.route.path !== 'string') throw new Error('unexpected route path');
        const path = (prefix + layer.route.path).replace(/:(\w+)/g, '{$1}');
        for (const method of Object.keys(layer.route.methods)) {
          if (method !== '_all') found.push(`${method.toUpperCase()} ${path}`);
        }
      } else if (isRouter(layer.handle)) {
        const mount =
          typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
        walk(layer.handle.stack, prefix + mount);
      }
    }
  };
  const router = (app as unknown as { router?: { stack?: RouterLayer[] } }).router;
  if (!router?.stack) throw new Error('Express 5 app.router.stack not found');
  walk(router.stack, '');
  return found.sort();
}

export function documentedRoutes(doc: Doc): string[] {
  return operations(doc)
    .map(({ path, method }) => `${method.toUpperCase()} ${path}`)
    .sort();
}

/** A concrete path for a template: `{id}` becomes 1, any other parameter an encoded word. */
export function concrete(template: string, values: Record<string, string | number> = {}): string {
  return template.replace(/\{([^}]+)\}/g, (_m, name: string) =>
    encodeURIComponent(String(values[name] ?? (name === 'id' ? 1 : `probe-${name}`))),
  );
}

export function send(base: string, method: Method, path: string) {
  const agent = request(base);
  switch (method) {
    case 'get':
      return agent.get(path);
    case 'post':
      return agent.post(path);
    case 'patch':
      return agent.patch(path);
    case 'put':
      return agent.put(path);
    case 'delete':
      return agent.delete(path);
    case 'head':
      return agent.head(path);
    case 'options':
      return agent.options(path);
    case 'trace':
      return agent.trace(path);
  }
}
