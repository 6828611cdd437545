/**
 * What the deployment checks read: docker-compose.yml parsed as Compose reads it (YAML merge
 * keys, both the list and the map forms of its entries, `${NAME:-default}` variables), and the
 * code it starts (entry points, the settings each reads and requires).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { configVariables, loadConfig } from '../../libs/config/index.js';
import { entryPoints, processOf, requiredSettings, settingsRead } from './process-settings.js';

export const root = fileURLToPath(new URL('../../', import.meta.url));
export const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

export const SCALABLE = ['license', 'update-catalog', 'download', 'gateway'];
/** A graceful stop takes up to 30 s (HTTP requests in flight, then RPC requests in hand). */
export const MIN_STOP_GRACE_SECONDS = 35;
/** Where the infrastructure keeps what must survive a restart. */
export const DATA_DIRECTORIES: Array<[string, string]> = [
  ['mongo', '/data/db'],
  ['minio', '/data'],
  ['rabbitmq', '/var/lib/rabbitmq'],
];
export const DOCKERFILE = 'infra/Dockerfile';
/** Settings that are secrets: each comes from the operator's environment or .env, never the file. */
export const SECRETS = ['ADMIN_TOKENS', 'DOWNLOAD_SIGNING_KEY', 'SIGNING_KEY'];
/** Secrets a service can do without: from the operator's environment or .env when set, else empty. */
export const OPTIONAL_SECRETS = ['SPARKLE_PRIVATE_KEY'];
export const BASE_IMAGE = 'node:20-bookworm-slim';

export type Service = Record<string, unknown>;
export interface Compose {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function parseCompose(text: string): Compose {
  // Compose resolves YAML merge keys (`<<: *app`), so the parser must too.
  const doc: unknown = parse(text, { merge: true });
  if (!isRecord(doc) || !isRecord(doc.services)) throw new Error('no services in compose file');
  const services: Record<string, Service> = {};
  for (const [name, service] of Object.entries(doc.services)) {
    services[name] = isRecord(service) ? service : {};
  }
  return { services, volumes: isRecord(doc.volumes) ? doc.volumes : {} };
}

export interface Context {
  entryPoints: string[];
  /** What `npm ci && npm run build` reads: package files, tsconfigs, compiled folders. */
  buildInputs: string[];
  configKeys: Set<string>;
  /** What loadConfig gives each setting when nothing is set. */
  defaults: Record<string, unknown>;
  requiredSettings: Record<string, string[]>;
  /** What each entry point reads of the configuration. */
  settingsRead: Record<string, string[]>;
  sourceExists(service: string): boolean;
}

export function realContext(): Context {
  const names = entryPoints();
  const tsconfigBuild = JSON.parse(read('tsconfig.build.json')) as { include: string[] };
  return {
    entryPoints: names,
    buildInputs: [
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'tsconfig.build.json',
      ...tsconfigBuild.include,
    ],
    configKeys: new Set(configVariables),
    defaults: loadConfig({}),
    requiredSettings: Object.fromEntries(names.map((n) => [n, requiredSettings(processOf(n))])),
    settingsRead: Object.fromEntries(names.map((n) => [n, settingsRead(processOf(n))])),
    sourceExists: (n) => existsSync(path.join(root, 'services', n, 'main.ts')),
  };
}

// ---- Reading compose service entries (both the list and the map forms) ----

export function commandScript(service: Service): string | undefined {
  const { command } = service;
  const words = Array.isArray(command)
    ? command.map(String)
    : typeof command === 'string'
      ? command.split(/\s+/)
      : [];
  return words.find((w) => /^dist\/services\/[^/]+\/main\.js$/.test(w));
}

export function environment(service: Service): Map<string, string> {
  const env = new Map<string, string>();
  const { environment: value } = service;
  if (Array.isArray(value)) {
    for (const entry of value.map(String)) {
      const at = entry.indexOf('=');
      env.set(at === -1 ? entry : entry.slice(0, at), at === -1 ? '' : entry.slice(at + 1));
    }
  } else if (isRecord(value)) {
    for (const [k, v] of Object.entries(value)) env.set(k, v === null ? '' : String(v));
  }
  return env;
}

export function dependencies(service: Service): Map<string, string> {
  const deps = new Map<string, string>();
  const { depends_on: value } = service;
  if (Array.isArray(value)) {
    for (const name of value.map(String)) deps.set(name, 'service_started');
  } else if (isRecord(value)) {
    for (const [name, spec] of Object.entries(value)) {
      deps.set(name, isRecord(spec) ? String(spec.condition ?? 'service_started') : '');
    }
  }
  return deps;
}

/** A variable reference in the compose file: `${NAME}`, `${NAME:-default}`, `${NAME:?message}`. */
export interface Interpolation {
  name: string;
  /** The text used when the variable is unset (or empty, with `:-`). */
  fallback?: string;
  required: boolean;
}

export function interpolations(value: unknown, found: Interpolation[] = []): Interpolation[] {
  if (typeof value === 'string') {
    // `$$` is a literal `$` for the container's shell, not a variable of compose.
    const text = value.replace(/\$\$/g, '');
    const pattern =
      /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g;
    for (const m of text.matchAll(pattern)) {
      const operator = m[2] ?? '';
      found.push({
        name: (m[1] ?? m[4]) as string,
        fallback: operator.endsWith('-') ? (m[3] ?? '') : undefined,
        required: operator.endsWith('?'),
      });
    }
  } else if (Array.isArray(value)) {
    for (const item of value) interpolations(item, found);
  } else if (isRecord(value)) {
    for (const [key, item] of Object.entries(value)) {
      interpolations(key, found);
      interpolations(item, found);
    }
  }
  return found;
}

/** A value as compose reads it when no variable is set: each reference gives way to its default. */
function withDefaults(value: string): string {
  return value
    .replace(
      /\$\{[A-Za-z_][A-Za-z0-9_]*(?:(:?[-?])([^}]*))?\}/g,
      (_all, operator?: string, text?: string) => (operator?.endsWith('-') ? (text ?? '') : ''),
    )
    .replace(/\$\$/g, '$');
}

/**
 * `"8080:8080"`, `"127.0.0.1:8080:8080"` or `{published: 8080}` fix a host port; `"8080"` (a
 * random one) and a range, `"8080-8089:8080"` (the next free one of it), do not.
 */
export function fixedHostPorts(service: Service): string[] {
  const ports = Array.isArray(service.ports) ? service.ports : [];
  const isFixed = (published: string) => {
    if (published === '') return false;
    const range = /^(\d+)-(\d+)$/.exec(published);
    return !range || Number(range[2]) <= Number(range[1]);
  };
  return ports
    .filter((p) => {
      if (isRecord(p)) {
        return p.published !== undefined && isFixed(withDefaults(String(p.published)));
      }
      const parts = withDefaults(String(p))
        .replace(/\/\w+$/, '')
        .split(':');
      return parts.length > 1 && isFixed(parts.at(-2) as string);
    })
    .map((p) => JSON.stringify(p));
}

export function hasHealthcheck(service: Service): boolean {
  const check = service.healthcheck;
  if (!isRecord(check) || check.disable === true) return false;
  const test = Array.isArray(check.test) ? check.test.map(String) : [String(check.test ?? '')];
  return test.length > 0 && test[0] !== 'NONE' && test.join('') !== '';
}

export function healthcheckText(service: Service): string {
  const test = isRecord(service.healthcheck) ? service.healthcheck.test : undefined;
  return Array.isArray(test) ? test.map(String).join(' ') : String(test ?? '');
}

/**
 * A container that runs once and exits (an init step), marked by an explicit `restart: "no"`
 * where every long-running service restarts: its exit code is its health.
 */
export function isOneShot(service: Service): boolean {
  return service.restart === 'no' || service.restart === false;
}

export function profiles(service: Service): string[] {
  return Array.isArray(service.profiles) ? service.profiles.map(String) : [];
}

export function commandText(service: Service): string {
  const parts = [service.entrypoint, service.command].flatMap((v) =>
    Array.isArray(v) ? v.map(String) : v === undefined ? [] : [String(v)],
  );
  return parts.join(' ');
}

/** Seconds of a compose duration (`40s`, `1m30s`, `1m`); undefined when it is not one. */
export function durationSeconds(value: unknown): number | undefined {
  const text = String(value ?? '');
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001, us: 0.000001 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(h|ms|us|m|s)/g)];
  if (parts.length === 0 || parts.map((m) => m[0]).join('') !== text) return undefined;
  return parts.reduce((sum, m) => sum + Number(m[1]) * (units[m[2] as string] as number), 0);
}

export function buildsFromDockerfile(service: Service): boolean {
  const { build } = service;
  return isRecord(build) && build.dockerfile === DOCKERFILE && (build.context ?? '.') === '.';
}

/** `amqp://user:pass@rabbitmq:5672` names the compose service `rabbitmq`. */
export function urlHost(value: string): string | undefined {
  return /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?([^:/?]+)/i.exec(value)?.[1];
}
